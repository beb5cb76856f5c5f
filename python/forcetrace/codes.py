"""Names of evdev event types, codes and input properties, as the kernel's
linux/input-event-codes.h spells them (table in _codes.py)."""
from ._codes import CODES, PROPERTIES, TYPES

__all__ = ["type_name", "code_name", "property_name", "code_value", "TYPES", "CODES", "PROPERTIES"]


def type_name(type_: int) -> str:
    """`EV_ABS` for 3; `0x1f` for a type the kernel does not name."""
    return TYPES.get(int(type_), f"0x{int(type_):02x}")


def code_name(type_: int, code: int) -> str:
    """`ABS_MT_PRESSURE` for (3, 0x3a); `EV_FF:0x0050` where the header names no such code."""
    name = CODES.get(int(type_), {}).get(int(code))
    return name if name is not None else f"{type_name(type_)}:0x{int(code):04x}"


def property_name(bit: int) -> str:
    """`INPUT_PROP_DIRECT` for 1."""
    return PROPERTIES.get(int(bit), f"INPUT_PROP_0x{int(bit):02x}")


def code_value(name: str) -> tuple[int, int]:
    """(type, code) of a code name, e.g. (3, 58) for `ABS_MT_PRESSURE`."""
    for type_, names in CODES.items():
        for code, known in names.items():
            if known == name:
                return type_, code
    raise KeyError(f"{name!r} is not an event code name in linux/input-event-codes.h")
