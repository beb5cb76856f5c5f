import Foundation
import XCTest
@testable import ForceTrace

/// The JSON outputs go through JSONWriter alone:
/// `devices --json` is byte for byte what the `[String: Any]` tree through
/// JSONText printed, and the pressure axis has one shape everywhere.
final class JSONObjectsTests: XCTestCase {
    /// The tree DevicesCommand built before, kept here as the oracle.
    static func oldObject(_ entry: InputDeviceEntry) -> [String: Any] {
        guard let device = entry.description else {
            return ["path": entry.path, "error": entry.error?.message ?? "unknown error",
                    "errno": entry.error?.errno.map { Int($0) } ?? NSNull()]
        }
        let pressure: Any = device.contactPressureAxis.map {
            ["code": Int($0.code), "name": $0.name, "min": Int($0.minimum), "max": Int($0.maximum), "resolution": Int($0.resolution)] as [String: Any]
        } ?? NSNull()
        return [
            "path": entry.path, "name": device.name,
            "bus": Int(device.bus), "bus_name": InputDevices.busName(device.bus),
            "vendor": Int(device.vendor), "product": Int(device.product), "version": Int(device.version),
            "properties": device.properties.map { EventNames.property($0) },
            "mt_protocol_b": device.contactProtocol == .slots, "slots": device.slotCount,
            "pressure_axis": pressure, "is_pen": device.isPen, "keyboard": device.hasKeyboardKeys,
            "force_capability": device.forceCapability.rawValue,
        ]
    }

    func testDevicesJSONIsTheOldTreesText() throws {
        var entries: [InputDeviceEntry] = [
            InputDeviceEntry(path: "/dev/input/event7", description: nil, error: .device("/dev/input/event7", "Permission denied", errno: EACCES)),
            InputDeviceEntry(path: "/dev/input/event8", description: nil, error: nil),
        ]
        for sample in ["touchscreen-mixed.evemu", "calibration/touchpad.evemu"] {
            var device = try Evemu.readDescription(packageRoot.appendingPathComponent("samples/\(sample)").path)
            entries.append(InputDeviceEntry(path: "/dev/input/event\(entries.count)", description: device, error: nil))
            device.name = "quote \" back\\slash \u{1} é"
            device.properties = []
            entries.append(InputDeviceEntry(path: "/dev/input/event\(entries.count)", description: device, error: nil))
        }
        if let pen = try? AnalysisFixtures.shared("dell_canvas_pen.evemu") {
            entries.append(InputDeviceEntry(path: "/dev/input/event99", description: try Evemu.readDescription(pen), error: nil))
        }
        XCTAssertEqual(InputDevices.json(entries), JSONText.encode(entries.map(Self.oldObject)))
        XCTAssertEqual(InputDevices.json([]), JSONText.encode([Any]()))
        XCTAssertEqual(InputDevices.json([]), "[]\n")
    }

    /// The pressure axis object of info, devices and report: the same keys.
    func testPressureAxisHasOneShape() throws {
        let device = try Evemu.readDescription(packageRoot.appendingPathComponent("samples/touchscreen-mixed.evemu").path)
        var out = JSONWriter()
        out.pressureAxis(device.contactPressureAxis)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(out.finish())) as? [String: Any])
        XCTAssertEqual(Set(object.keys), ["code", "max", "min", "name", "resolution"])
        let devices = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(InputDevices.json(
            [InputDeviceEntry(path: "/dev/input/event0", description: device, error: nil)]).utf8)) as? [[String: Any]])
        XCTAssertEqual(Set((devices[0]["pressure_axis"] as? [String: Any] ?? [:]).keys), Set(object.keys))
        // report --json's had no resolution before.
        let analysis = try AnalysisFixtures.analyze(Simulator.run(SimulationOptions()).recording)
        let report = PressureReport(options: analysis.options, files: [FileAnalysis(file: "x.h5", recordings: [analysis])])
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(report.jsonBytes())) as? [String: Any])
        let recording = try XCTUnwrap((json["recordings"] as? [[String: Any]])?.first)
        XCTAssertEqual(Set((recording["pressure_axis"] as? [String: Any] ?? [:]).keys), Set(object.keys))
    }
}
