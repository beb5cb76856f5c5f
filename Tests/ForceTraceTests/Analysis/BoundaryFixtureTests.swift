import Foundation
import HDF5
import XCTest

/// The hand-written evemu fixtures in Tests/fixtures, each on a boundary that
/// an off-by-one or a flipped comparison would cross. Every expected number
/// is worked out by hand in the fixture's own comment; the tests go through
/// the command-line tool and read the files by FORMAT.md's names.
final class BoundaryFixtureTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = try FormatTestSupport.temporaryDirectory(self)
    }

    private func imported(_ fixture: String, extra: [String] = []) throws -> (path: String, stderr: String) {
        let (path, run) = try BlackBox.importTrace(BlackBox.fixture(fixture), into: directory, extra: extra)
        return (path, run.stderr)
    }

    private func doubles(_ contacts: [[String: Any]], _ key: String) -> [Double?] { contacts.map { $0[key] as? Double } }
    private func ints(_ contacts: [[String: Any]], _ key: String) -> [Int?] { contacts.map { $0[key] as? Int } }
    private func strings(_ contacts: [[String: Any]], _ key: String) -> [String?] { contacts.map { $0[key] as? String } }

    // MARK: Thresholds

    /// Peaks at 152, 153, 203 and 204 on 0..255: 153 is exactly peek (0.6), 204 exactly pop (0.8).
    func testPeaksExactlyAtPeekAndPop() throws {
        let (trace, _) = try imported("thresholds-exact.evemu")
        let report = try BlackBox.report(trace)
        let contacts = BlackBox.contacts(report)
        XCTAssertEqual(contacts.count, 4)
        XCTAssertEqual(ints(contacts, "peak_pressure"), [152, 153, 203, 204])
        XCTAssertEqual(doubles(contacts, "peak_norm"), [152.0 / 255, 0.6, 203.0 / 255, 0.8])
        XCTAssertEqual(strings(contacts, "class"), ["tap", "peek-press", "peek-press", "pop-press"])
        XCTAssertEqual(ints(contacts, "peek_crossings"), [0, 1, 1, 1])
        XCTAssertEqual(ints(contacts, "pop_crossings"), [0, 0, 0, 1])
        XCTAssertEqual(doubles(contacts, "t_peek_s"), [nil, 0.01, 0.01, 0.01])
        XCTAssertEqual(doubles(contacts, "t_pop_s"), [nil, nil, nil, 0.01])
        XCTAssertEqual(doubles(contacts, "time_to_peak_s"), [0.01, 0.01, 0.01, 0.01])
        XCTAssertEqual(ints(contacts, "samples"), [2, 2, 2, 2])
        XCTAssertEqual(doubles(contacts, "duration_s"), [0.02, 0.02, 0.02, 0.02])
        XCTAssertEqual(contacts.map { $0["stationary_deep_press"] as? Bool }, [false, false, false, true])

        let summary = BlackBox.summary(report)
        XCTAssertEqual(summary["reached_peek"] as? Int, 3)
        XCTAssertEqual(summary["reached_pop"] as? Int, 1)
        XCTAssertEqual(summary["classes"] as? [String: Int], ["tap": 1, "peek-press": 2, "pop-press": 1])
        // The sweep counts peaks at or above j/100: 0.6 and 0.8 are in their own lanes.
        let reached = (summary["sweep"] as? [String: Any])?["reached"] as? [Int] ?? []
        XCTAssertEqual(reached.count, 101)
        if reached.count == 101 {
            XCTAssertEqual([reached[59], reached[60], reached[61], reached[79], reached[80], reached[81]], [4, 3, 2, 2, 1, 0])
        }
        // Histogram bin j holds j/100 <= peak < (j+1)/100: 0.596 → 59, 0.6 → 60, 0.796 → 79, 0.8 → 80.
        let histograms = summary["histograms"] as? [String: Any]
        let bins = (histograms?["peak_norm"] as? [String: Any])?["counts"] as? [Int] ?? []
        XCTAssertEqual(bins.count, 101)
        XCTAssertEqual(bins.enumerated().filter { $0.element > 0 }.map(\.offset), [59, 60, 79, 80])
    }

    /// 80 crosses pop; the drop to exactly 0.75 (= 0.8 − 0.05) must not re-arm; 74 does.
    func testDropExactlyToThresholdMinusHysteresisDoesNotRearm() throws {
        let (trace, _) = try imported("hysteresis-exact.evemu")
        let defaults = BlackBox.contacts(try BlackBox.report(trace))
        XCTAssertEqual(defaults.count, 1)
        XCTAssertEqual(ints(defaults, "pop_crossings"), [2])
        XCTAssertEqual(ints(defaults, "pop_recrossings"), [1])
        XCTAssertEqual(ints(defaults, "peek_crossings"), [1])
        XCTAssertEqual(doubles(defaults, "t_pop_s"), [0.01])
        XCTAssertEqual(doubles(defaults, "t_peek_s"), [0.01])
        XCTAssertEqual(strings(defaults, "class"), ["pop-press"])
        XCTAssertEqual(ints(defaults, "samples"), [6])
        XCTAssertEqual(ints(defaults, "motion_events"), [5])
        XCTAssertEqual(ints(defaults, "stationary_pressure_events"), [5])

        // The same boundary for peek: peek 0.8 re-arms below 0.75 too.
        let moved = BlackBox.contacts(try BlackBox.report(trace, ["--peek", "0.8", "--pop", "0.9"]))
        XCTAssertEqual(ints(moved, "peek_crossings"), [2])
        XCTAssertEqual(ints(moved, "peek_recrossings"), [1])
        XCTAssertEqual(ints(moved, "pop_crossings"), [0])
        XCTAssertEqual(strings(moved, "class"), ["peek-press"])
    }

    /// 30, 70, 60, 70, 40: the peak is the first 70.
    func testRepeatedPeakValueTimesTheFirstSample() throws {
        let (trace, _) = try imported("repeated-peak.evemu")
        let contacts = BlackBox.contacts(try BlackBox.report(trace))
        XCTAssertEqual(contacts.count, 1)
        XCTAssertEqual(ints(contacts, "peak_pressure"), [70])
        XCTAssertEqual(doubles(contacts, "peak_norm"), [0.7])
        XCTAssertEqual(doubles(contacts, "time_to_peak_s"), [0.01])
        XCTAssertEqual(ints(contacts, "samples"), [5])
        XCTAssertEqual(ints(contacts, "motion_events"), [4])
        XCTAssertEqual(ints(contacts, "stationary_pressure_events"), [3])
        XCTAssertEqual(ints(contacts, "stationary_rise"), [1])
        XCTAssertEqual(ints(contacts, "stationary_after_peak"), [2])
        XCTAssertEqual(doubles(contacts, "inflation"), [4.0])
        XCTAssertEqual(ints(contacts, "displacement_units"), [3])
        XCTAssertEqual(strings(contacts, "class"), ["peek-press"])
    }

    // MARK: Contacts at their shortest

    func testOneSampleZeroLengthAndNoFrameContacts() throws {
        let (path, _) = try imported("short-contacts.evemu")
        let trace = try BlackBox.Trace(path)
        defer { try? trace.close() }
        let contacts = try trace.table("contacts")
        XCTAssertEqual(contacts["id"], [0, 1, 2])
        XCTAssertEqual(contacts["tracking_id"], [1, 2, 4], "tracking id 3 lived for no frame: no contact")
        XCTAssertEqual(contacts["t_down_ns"], [0, 1_000_000_000, 3_000_000_000])
        XCTAssertEqual(contacts["t_up_ns"], [10_000_000, 1_000_000_000, -1])
        XCTAssertEqual(contacts["first_sample"], [0, 1, 2])
        XCTAssertEqual(contacts["last_sample"], [0, 1, 3])
        XCTAssertEqual(contacts["n_samples"], [1, 1, 2])
        let samples = try trace.table("samples")
        XCTAssertEqual(samples["contact"], [0, 1, 2, 2])
        XCTAssertEqual(samples["pressure"], [40, 65, 90, 95])
        XCTAssertEqual(samples["flags"], [1, 1, 1, 4])
        XCTAssertEqual(try trace.attribute("t0_ns")?.intValue, 1_764_400_001_000_000_000)

        let report = try BlackBox.report(path)
        let rows = BlackBox.contacts(report)
        XCTAssertEqual(ints(rows, "samples"), [1, 1, 2])
        XCTAssertEqual(ints(rows, "motion_events"), [0, 0, 1])
        XCTAssertEqual(doubles(rows, "duration_s"), [0.01, 0, 0.01])
        XCTAssertEqual(doubles(rows, "inflation"), [nil, nil, nil])
        XCTAssertEqual(strings(rows, "class"), ["tap", "peek-press", "pop-press"])
        XCTAssertEqual(doubles(rows, "time_to_peak_s"), [0, 0, 0.01])
        XCTAssertEqual(doubles(rows, "t_peek_s"), [nil, 0, 0])
        XCTAssertEqual(doubles(rows, "t_pop_s"), [nil, nil, 0])
        XCTAssertEqual(rows.map { $0["still_down"] as? Bool }, [false, false, true])
        XCTAssertEqual(BlackBox.summary(report)["still_down"] as? Int, 1)
        // JSON shows both as null; --save tells them apart: no motion is NaN, all stationary is inf.
        let saved = directory.appendingPathComponent("short-report.h5").path
        try BlackBox.run(["report", path, "--save", saved])
        let reportFile = try File.open(saved)
        defer { try? reportFile.close() }
        let inflation = try reportFile.root.openGroup("recordings").openGroup("short-contacts").openGroup("contacts")
            .readArray("inflation", of: Double.self)
        XCTAssertEqual(inflation.count, 3)
        XCTAssertEqual(inflation.map { $0.isNaN ? "nan" : "\($0)" }, ["nan", "nan", "inf"])
    }

    func testTrackingIDReplacedWithoutMinusOne() throws {
        let (path, stderr) = try imported("tracking-id-replaced.evemu")
        XCTAssertTrue(stderr.contains("tracking id 6 replaced 5 without -1"), stderr)
        let trace = try BlackBox.Trace(path)
        defer { try? trace.close() }
        let contacts = try trace.table("contacts")
        XCTAssertEqual(contacts["tracking_id"], [5, 6])
        XCTAssertEqual(contacts["t_down_ns"], [0, 20_000_000])
        XCTAssertEqual(contacts["t_up_ns"], [20_000_000, 40_000_000])
        XCTAssertEqual(contacts["first_sample"], [0, 2])
        XCTAssertEqual(contacts["last_sample"], [1, 3])
        XCTAssertEqual(contacts["n_samples"], [2, 2])
        let samples = try trace.table("samples")
        XCTAssertEqual(samples["contact"], [0, 0, 1, 1])
        XCTAssertEqual(samples["x"], [100, 100, 400, 400])
        XCTAssertEqual(samples["pressure"], [20, 30, 30, 50])
        XCTAssertEqual(samples["flags"], [1, 4, 1, 4])
    }

    /// Without slots: BTN_TOUCH 0 and 1 in one frame end one contact and begin the next.
    func testTouchReleasedAndPressedInOneFrame() throws {
        let (path, _) = try imported("touch-up-and-down-in-one-frame.evemu")
        let trace = try BlackBox.Trace(path)
        defer { try? trace.close() }
        let contacts = try trace.table("contacts")
        XCTAssertEqual(contacts["slot"], [-1, -1, -1])
        XCTAssertEqual(contacts["t_down_ns"], [0, 10_000_000, 1_000_000_000])
        XCTAssertEqual(contacts["t_up_ns"], [10_000_000, 20_000_000, 1_020_000_000])
        XCTAssertEqual(contacts["first_sample"], [0, 1, 2])
        XCTAssertEqual(contacts["last_sample"], [0, 1, 2])
        XCTAssertEqual(contacts["n_samples"], [1, 1, 1])
        let samples = try trace.table("samples")
        XCTAssertEqual(samples["contact"], [0, 1, 2])
        XCTAssertEqual(samples["pressure"], [50, 60, 60])
    }

    func testSlotsBeyondTheDeclaredRangeAreKeptButNotDecoded() throws {
        let (path, stderr) = try imported("slots-beyond-range.evemu")
        XCTAssertTrue(stderr.contains("ABS_MT_SLOT 2 is beyond the 2 declared slots"), stderr)
        XCTAssertTrue(stderr.contains("ABS_MT_SLOT 7 is beyond the 2 declared slots"), stderr)
        let trace = try BlackBox.Trace(path)
        defer { try? trace.close() }
        XCTAssertEqual(try trace.table("events")["value"]?.count, 25)
        let contacts = try trace.table("contacts")
        XCTAssertEqual(contacts["slot"], [0, 1])
        XCTAssertEqual(contacts["tracking_id"], [1, 3])
        XCTAssertEqual(contacts["first_sample"], [0, 1])
        XCTAssertEqual(contacts["last_sample"], [2, 1])
        XCTAssertEqual(contacts["n_samples"], [2, 1])
        let samples = try trace.table("samples")
        XCTAssertEqual(samples["contact"], [0, 1, 0])
        XCTAssertEqual(samples["x"], [100, 500, 100])
        XCTAssertEqual(samples["pressure"], [40, 50, 45])
    }

    // MARK: Axes and timestamps through every format

    /// Hand-written absinfo with distinct fuzz, flat and resolution on each axis.
    private let expectedAxes: [[Int64]] = [
        // code, min, max, fuzz, flat, resolution
        [0x00, 3, 4093, 7, 11, 41],
        [0x01, 5, 2811, 8, 13, 43],
        [0x18, 0, 255, 2, 3, 0],
        [0x2f, 0, 4, 0, 0, 0],
        [0x35, 3, 4093, 7, 11, 41],
        [0x36, 5, 2811, 8, 13, 43],
        [0x39, 0, 65535, 0, 0, 0],
        [0x3a, 10, 250, 4, 6, 2],
    ]

    private func axesRows(_ path: String) throws -> [[Int64]] {
        let trace = try BlackBox.Trace(path)
        defer { try? trace.close() }
        let axes = try trace.table("axes")
        let names = ["code", "min", "max", "fuzz", "flat", "resolution"]
        let count = axes["code"]?.count ?? 0
        return (0..<count).map { row in names.map { axes[$0]?[row] ?? -999 } }
    }

    func testAxesWithFlatFuzzAndResolutionSurviveEveryFormat() throws {
        let (trace, _) = try imported("axes-flat-fuzz-resolution.evemu")
        XCTAssertEqual(try axesRows(trace), expectedAxes)

        // libinput record: absinfo is [min, max, fuzz, flat, resolution].
        let yaml = try BlackBox.run(["export", trace, "--format", "libinput"]).stdout
        for line in ["0: [3, 4093, 7, 11, 41]", "1: [5, 2811, 8, 13, 43]", "24: [0, 255, 2, 3, 0]",
                     "53: [3, 4093, 7, 11, 41]", "54: [5, 2811, 8, 13, 43]", "58: [10, 250, 4, 6, 2]"] {
            XCTAssertTrue(yaml.contains(line), "libinput export lacks '\(line)':\n\(yaml.prefix(1500))")
        }
        let evemu = try BlackBox.run(["export", trace, "--format", "evemu"]).stdout
        for line in ["A: 00 3 4093 7 11 41", "A: 01 5 2811 8 13 43", "A: 18 0 255 2 3 0",
                     "A: 35 3 4093 7 11 41", "A: 36 5 2811 8 13 43", "A: 3a 10 250 4 6 2"] {
            XCTAssertTrue(evemu.split(separator: "\n").contains(Substring(line)), "evemu export lacks '\(line)'")
        }
        for (format, text) in [("libinput", yaml), ("evemu", evemu)] {
            let file = directory.appendingPathComponent("axes.\(format)").path
            try text.write(toFile: file, atomically: true, encoding: .utf8)
            let (back, _) = try BlackBox.importTrace(file, into: directory)
            XCTAssertEqual(try axesRows(back), expectedAxes, "axes after \(format)")
        }

        // Normalization uses min: (130 − 10) / 240 = 0.5, (250 − 10) / 240 = 1.
        let contacts = BlackBox.contacts(try BlackBox.report(trace))
        XCTAssertEqual(doubles(contacts, "peak_norm"), [1.0])
        XCTAssertEqual(strings(contacts, "class"), ["pop-press"])
        XCTAssertEqual(doubles(contacts, "t_peek_s"), [0.01], "the down row at exactly 0.5 is below peek")
    }

    /// Hand-computed nanoseconds for fractions of 1 to 9 digits.
    private let expectedTimes: [Int64] = [
        0, 750_000_000, 1_625_000_000, 2_562_500_000, 3_531_250_000,
        4_515_625_000, 5_507_812_500, 6_503_906_250, 7_501_953_125, 8_500_000_000,
    ]

    func testTimestampsWithOneToNineFractionDigits() throws {
        let (trace, _) = try imported("timestamp-digits.evemu")
        let file = try BlackBox.Trace(trace)
        XCTAssertEqual(try file.attribute("t0_ns")?.intValue, 1_764_400_000_500_000_000)
        XCTAssertEqual(try file.attribute("clock")?.stringValue, "realtime")
        XCTAssertEqual(try file.table("events")["t_ns"], expectedTimes)
        try file.close()

        let evemu = try BlackBox.run(["export", trace, "--format", "evemu"]).stdout
        let times = evemu.split(separator: "\n").filter { $0.hasPrefix("E: ") }.map { $0.split(separator: " ")[1] }
        XCTAssertEqual(times, ["1764400000.500000", "1764400001.250000", "1764400002.125000", "1764400003.062500",
                               "1764400004.031250", "1764400005.015625", "1764400006.007812500",
                               "1764400007.003906250", "1764400008.001953125", "1764400009.000000"])
        // evemu brings the same nanoseconds back; libinput record ([sec, usec, ...])
        // and raw records (tv_usec) hold microseconds, so they keep whole µs.
        let header = directory.appendingPathComponent("header.evemu").path
        try evemu.write(toFile: header, atomically: true, encoding: .utf8)
        for format in ["evemu", "libinput", "raw"] {
            let out = directory.appendingPathComponent("times.\(format)").path
            try BlackBox.run(["export", trace, "--format", format, "-o", out])
            let (back, _) = try BlackBox.importTrace(out, into: directory, extra: format == "raw" ? ["--desc", header] : [])
            let reread = try BlackBox.Trace(back)
            defer { try? reread.close() }
            let t0 = try reread.attribute("t0_ns")?.intValue ?? 0
            let absolute = try reread.table("events")["t_ns"]?.map { $0 + t0 }
            let expected = expectedTimes.map { $0 + 1_764_400_000_500_000_000 }
            XCTAssertEqual(absolute, format != "evemu" ? expected.map { $0 / 1000 * 1000 } : expected, format)
        }
    }

    /// Times before 0 split as evdev does: −0.5 s is tv_sec −1, tv_usec 500000.
    func testNegativeTimesFloorInRawRecords() throws {
        let (trace, _) = try imported("negative-times.yml")
        let file = try BlackBox.Trace(trace)
        XCTAssertEqual(try file.attribute("t0_ns")?.intValue, -500_000_000)
        XCTAssertEqual(try file.table("events")["t_ns"], [0, 0, 0, 0, 0, 750_000_000, 750_000_000])
        try file.close()
        let raw = directory.appendingPathComponent("negative.raw")
        try BlackBox.run(["export", trace, "--format", "raw", "-o", raw.path])
        let bytes = [UInt8](try Data(contentsOf: raw))
        XCTAssertEqual(bytes.count, 7 * 24)
        func field(_ record: Int, _ offset: Int) -> Int64 {
            (0..<8).reduce(Int64(0)) { $0 | Int64(bytes[record * 24 + offset + $1]) << (8 * $1) }
        }
        guard bytes.count == 7 * 24 else { return }
        XCTAssertEqual((0..<7).map { [field($0, 0), field($0, 8)] },
                       Array(repeating: [-1, 500_000], count: 5) + Array(repeating: [0, 250_000], count: 2))
    }
}
