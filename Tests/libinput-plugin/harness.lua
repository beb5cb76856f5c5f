-- Runs a libinput Lua plugin outside libinput, for LibinputPluginTests.
--
-- usage: lua5.4 harness.lua PLUGIN.lua < SCRIPT
--
-- The plugin is loaded as text in an environment holding only what
-- libinput's sandbox offers (doc/user/lua-plugins.rst, "Limitations") and
-- stand-ins for the `libinput` and `evdev` globals that print every call.
-- SCRIPT lines:
--   device BUS VID PID AXIS_MIN AXIS_MAX NAME_HEX   a new evdev device
--   frame V1 V2 ...                                  one frame for the last device: ABS_X 7, then ABS_PRESSURE Vi each
-- Output lines:
--   register 1 | connect NAME | name | info | absinfos
--   set_absinfo USAGE minimum=N maximum=N | device-connect NAME
--   log_info TEXT | log_error TEXT
--   frame nil | frame USAGE=VALUE ...

local ABS_X, ABS_PRESSURE = (3 << 16) | 0x00, (3 << 16) | 0x18

local function out(...)
    io.write(table.concat({ ... }, " "), "\n")
end

local hooks = {}
local libinput = {}
function libinput:register(versions)
    out("register", table.concat(versions, ","))
    return versions[1]
end
function libinput:connect(name, fn)
    out("connect", name)
    hooks[name] = fn
end
function libinput:log_info(text) out("log_info", text) end
function libinput:log_error(text) out("log_error", text) end
function libinput:log_debug(text) out("log_debug", text) end
function libinput:now() return 0 end
function libinput:version() return 1 end

local evdev = { ABS_X = ABS_X, ABS_PRESSURE = ABS_PRESSURE, BUS_USB = 0x03 }

local sandbox = {
    assert = assert, error = error, ipairs = ipairs, next = next, pairs = pairs, print = print,
    select = select, tonumber = tonumber, tostring = tostring, type = type, xpcall = xpcall,
    pcall = pcall, _VERSION = _VERSION, math = math, table = table, string = string,
    libinput = libinput, evdev = evdev,
}

local file = assert(io.open(arg[1], "rb"))
local text = file:read("a")
file:close()
local chunk = assert(load(text, "=plugin", "t", sandbox))
chunk()

local function unhex(hex)
    return (hex:gsub("%x%x", function(pair) return string.char(tonumber(pair, 16)) end))
end

local current
for line in io.lines() do
    local words = {}
    for word in line:gmatch("%S+") do words[#words + 1] = word end
    if words[1] == "device" then
        local name = unhex(words[7] or "")
        local absinfo = { minimum = tonumber(words[5]), maximum = tonumber(words[6]), fuzz = 0, flat = 0, resolution = 0 }
        local frameHook
        local device = {}
        function device:name() out("name") return name end
        function device:info()
            out("info")
            return { bustype = tonumber(words[2]), vid = tonumber(words[3]), pid = tonumber(words[4]) }
        end
        function device:absinfos() out("absinfos") return { [ABS_PRESSURE] = absinfo } end
        function device:usages() return { [ABS_X] = true, [ABS_PRESSURE] = true } end
        function device:set_absinfo(usage, info)
            out("set_absinfo", tostring(usage), "minimum=" .. tostring(info.minimum), "maximum=" .. tostring(info.maximum))
        end
        function device:connect(name, fn)
            out("device-connect", name)
            if name == "evdev-frame" then frameHook = fn end
        end
        current = { device = device, frame = function(...) return frameHook and frameHook(...) end }
        hooks["new-evdev-device"](device)
    elseif words[1] == "frame" then
        local frame = { { usage = ABS_X, value = 7 } }
        for i = 2, #words do frame[#frame + 1] = { usage = ABS_PRESSURE, value = math.tointeger(tonumber(words[i])) } end
        local result = current.frame(current.device, frame, 0)
        if result == nil then
            out("frame nil")
        else
            local parts = { "frame" }
            for _, event in ipairs(result) do
                parts[#parts + 1] = tostring(event.usage) .. "=" .. string.format("%s", event.value) .. (math.type(event.value) == "float" and "f" or "")
            end
            out(table.unpack(parts))
        end
    end
end
