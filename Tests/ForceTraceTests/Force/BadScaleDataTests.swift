import Foundation
import XCTest
@testable import ForceTrace

/// Every way a scale's data goes bad (overload, fault, unstable, a negative
/// tare, a line that is not a weight, a unit that is not a mass, unplugging),
/// each with one check of what a reader must make of it. The checks are held
/// against forcetrace's readers, which pass, and against a naive reader,
/// which fails every one: the first number on the line or the weight field
/// scaled, 0 when there is none, every reading taken as stable, a closed
/// line taken as the end. So no check can pass by accident.
final class BadScaleDataTests: XCTestCase {
    struct Case: Sendable {
        var name: String
        /// A serial line, or a report for `HIDScaleReportTests.scale`.
        var serial: String?
        var hid: [UInt8]?
        var check: @Sendable (ScaleReading) -> Bool
    }

    static let cases: [Case] = [
        Case(name: "overload with the display's number", serial: "OL,+999999.9  g", hid: nil) { $0.grams.isNaN && $0.status.contains(.overload) },
        Case(name: "overload without a number", serial: "OL", hid: nil) { $0.grams.isNaN && $0.status.contains(.overload) },
        Case(name: "HID over weight", serial: nil, hid: HIDScaleReportTests.report(status: 6, weight: 65535)) {
            $0.grams.isNaN && $0.status.contains(.overload)
        },
        Case(name: "HID fault", serial: nil, hid: HIDScaleReportTests.report(status: 1, weight: 1200)) { $0.grams.isNaN && $0.status.contains(.fault) },
        Case(name: "unstable", serial: "US,+00012.30  g", hid: nil) { $0.grams == 12.3 && $0.status.contains(.inMotion) },
        Case(name: "HID in motion", serial: nil, hid: HIDScaleReportTests.report(status: 3, weight: 123)) {
            abs($0.grams - 12.3) < 1e-9 && $0.status.contains(.inMotion)
        },
        Case(name: "negative tare", serial: "ST,NT,-    5.0 g", hid: nil) { $0.grams == -5 && $0.status.contains(.underZero) },
        Case(name: "HID under zero", serial: nil, hid: HIDScaleReportTests.report(status: 5, weight: 50)) {
            abs($0.grams + 5) < 1e-9 && $0.status.contains(.underZero)
        },
        Case(name: "a line that is not a weight", serial: "ST,+12.3.4 g", hid: nil) { $0.grams.isNaN && $0.status.contains(.unreadable) },
        Case(name: "a count, not a mass", serial: "ST,+0001234.5 PC", hid: nil) { $0.grams.isNaN && $0.status.contains(.unreadable) },
        Case(name: "HID without a unit", serial: nil, hid: HIDScaleReportTests.report(unit: 0, weight: 100)) {
            $0.grams.isNaN && $0.status.contains(.unreadable)
        },
    ]

    /// The naive serial reader: the first number on the line, 0 without one, stable.
    static func naiveSerial(_ line: String) -> ScaleReading {
        let numbers = line.split { !"0123456789.".contains($0) }.compactMap { Double($0) }
        return ScaleReading(timeNs: 0, grams: numbers.first ?? 0, status: .stable, rawValue: numbers.first ?? 0, rawUnit: "g")
    }

    /// The naive HID reader: the weight field times 10^scaling, in grams, stable.
    static func naiveHID(_ report: [UInt8]) -> ScaleReading {
        let weight = Double(UInt16(report[4]) | UInt16(report[5]) << 8) * pow(10, Double(Int8(bitPattern: report[3])))
        return ScaleReading(timeNs: 0, grams: weight, status: .stable, rawValue: weight, rawUnit: "g")
    }

    func testEveryCheckPassesForForcetraceAndFailsForANaiveReader() throws {
        let hid = try HIDScaleReport(HIDReportDescriptor(HIDScaleReportTests.scale, name: "/dev/hidraw9"), name: "/dev/hidraw9")
        for entry in Self.cases {
            let (real, naive): (ScaleReading, ScaleReading)
            if let line = entry.serial {
                real = SerialScaleLine.parse(Array(line.utf8), timeNs: 0)
                naive = Self.naiveSerial(line)
            } else {
                let report = try XCTUnwrap(entry.hid)
                real = try XCTUnwrap(hid.reading(report, timeNs: 0), entry.name)
                naive = Self.naiveHID(report)
            }
            XCTAssertTrue(entry.check(real), "\(entry.name): forcetrace read \(real)")
            XCTAssertFalse(entry.check(naive), "\(entry.name): the check passes a naive reader's \(naive)")
        }
    }

    /// Unplugging: the line closing is an error naming the scale, which the
    /// recording keeps as `scale_error`; a naive reader ends quietly.
    func testAnUnpluggedScaleIsAnErrorNotAnEnd() throws {
        func check(_ readings: [ScaleReading], _ failure: ForceTraceError?, device: String) -> Bool {
            guard let failure else { return false }
            return failure.file == device && failure.message.hasPrefix("the scale is gone") && readings.allSatisfy { !$0.grams.isNaN }
        }
        let (master, slave) = try PseudoTerminal.open()
        let scale = try SerialScale(path: slave, baud: 9600)
        defer { scale.close() }
        PseudoTerminal.send(master, "ST,+00001.00  g\r\n")
        var readings: [ScaleReading] = []
        var failure: ForceTraceError?
        let deadline = Date().addingTimeInterval(10)
        var closed = false
        while failure == nil && Date() < deadline {
            do {
                readings += try scale.readAvailable(timeNs: 0)
                if !readings.isEmpty && !closed { Foundation.close(master); closed = true }
            } catch let error as ForceTraceError {
                failure = error
            }
            usleep(10_000)
        }
        XCTAssertTrue(check(readings, failure, device: slave), "forcetrace: \(readings), \(String(describing: failure))")
        // The naive reader: the readings so far, and no failure.
        XCTAssertFalse(check(readings, nil, device: slave))
    }
}
