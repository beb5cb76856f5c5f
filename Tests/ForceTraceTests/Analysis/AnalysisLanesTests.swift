import Foundation
import XCTest
@testable import ForceTrace

/// The analysis split over lanes (threads, by contact id) and blocks of any
/// size equals the one-lane analysis exactly, and refuses damaged samples
/// with the same first error.
final class AnalysisLanesTests: XCTestCase {
    typealias F = AnalysisFixtures

    private var directory: URL!

    override func setUpWithError() throws {
        directory = try FormatTestSupport.temporaryDirectory(self)
    }

    /// Traces with one and two fingers, moves, labels, curves: simulated,
    /// the samples, the boundary fixtures and (when present) the genuine recordings.
    private func traces() throws -> [String] {
        var paths: [String] = []
        for (seed, presses) in [(UInt64(3), 150), (UInt64(8), 40)] {
            var options = SimulationOptions()
            options.seed = seed
            options.presses = presses
            let path = directory.appendingPathComponent("sim-\(seed).h5").path
            let writer = try TraceWriter(creating: path)
            try writer.write(Simulator.run(options).recording)
            try writer.close()
            paths.append(path)
        }
        var inputs = try FileManager.default.contentsOfDirectory(at: FormatTestSupport.samples, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "evemu" }.map(\.path)
        let fixtures = FormatTestSupport.packageRoot.appendingPathComponent("Tests/fixtures")
        inputs += try FileManager.default.contentsOfDirectory(at: fixtures, includingPropertiesForKeys: nil)
            .filter { ["evemu", "yml"].contains($0.pathExtension) }.map(\.path)
        var described: [(String, String?)] = inputs.map { ($0, nil) }
        if FileManager.default.fileExists(atPath: FormatTestSupport.sharedRecordings.path) {
            described += try FormatTestSupport.sharedRecordingInputs().map { ($0.events, $0.description) }
        }
        for (index, (input, description)) in described.enumerated() {
            let path = directory.appendingPathComponent("input-\(index).h5").path
            let run = try FormatTestSupport.run(["import", input, "-o", path] + (description.map { ["--desc", $0] } ?? []))
            XCTAssertEqual(run.status, 0, "\(input): \(run.stderr)")
            paths.append(path)
        }
        return paths
    }

    /// A simulated trace of `presses` presses, written as `name` in the test's folder; its path.
    private func simulatedTrace(_ name: String, seed: UInt64, presses: Int) throws -> String {
        var simulation = SimulationOptions()
        simulation.seed = seed
        simulation.presses = presses
        let path = directory.appendingPathComponent(name).path
        let writer = try TraceWriter(creating: path)
        try writer.write(Simulator.run(simulation).recording)
        try writer.close()
        return path
    }

    private func analyses(_ path: String, _ options: AnalysisOptions) throws -> [RecordingAnalysis] {
        let reader = try TraceReader(path: path)
        return try reader.recordingNames.map { try PressureAnalyzer.analyze(try reader.recording($0), options: options) }
    }

    private func assertSame(_ one: RecordingAnalysis, _ other: RecordingAnalysis, _ what: String) {
        XCTAssertEqual(one.contacts.count, other.contacts.count, what)
        // The first contact that differs, not the whole table.
        if let index = one.contacts.indices.first(where: { $0 < other.contacts.count && one.contacts[$0] != other.contacts[$0] }) {
            XCTFail("\(what): contact \(index): \(one.contacts[index]) vs \(other.contacts[index])")
        }
        XCTAssertEqual(one.warnings, other.warnings, what)
        // Bit for bit, NaN included.
        XCTAssertEqual(one.curves.map(\.bitPattern), other.curves.map(\.bitPattern), what)
        XCTAssertEqual(one.alignedCurves.starts, other.alignedCurves.starts, what)
        XCTAssertEqual(one.alignedCurves.values.map(\.bitPattern), other.alignedCurves.values.map(\.bitPattern), what)
        XCTAssertEqual(one.paths.map(\.id), other.paths.map(\.id), what)
        XCTAssertEqual(one.paths.map(\.x), other.paths.map(\.x), what)
        XCTAssertEqual(one.paths.map(\.y), other.paths.map(\.y), what)
        XCTAssertEqual(one.paths.map { $0.pressure.map(\.bitPattern) }, other.paths.map { $0.pressure.map(\.bitPattern) }, what)
        var left = one.statistics, right = other.statistics
        XCTAssertEqual(left.curveBands.points, right.curveBands.points, what)
        // The bands hold NaN for classes without contacts: compared as the JSON renders them.
        let report = { (statistics: PressureStatistics) -> String in
            var out = JSONWriter()
            PressureReport(options: one.options, files: []).writeSummary(statistics, to: &out)
            return String(decoding: out.finish(), as: UTF8.self)
        }
        XCTAssertEqual(report(left), report(right), what)
        left.curveBands = CurveBands(); left.alignedBands = CurveBands()
        right.curveBands = CurveBands(); right.alignedBands = CurveBands()
        XCTAssertEqual(left, right, what)
    }

    /// The recordings of `path` again, in chunks (so blocks) of `chunkRows`.
    private func rewritten(_ path: String, chunkRows: Int) throws -> String {
        let reader = try TraceReader(path: path)
        var options = TraceWriteOptions()
        options.chunkRows = chunkRows
        let target = path.replacingOccurrences(of: ".h5", with: "-chunks-\(chunkRows).h5")
        let writer = try TraceWriter(creating: target, options: options)
        for name in reader.recordingNames { try writer.write(try reader.recording(name).loadRecording()) }
        try writer.close()
        return target
    }

    func testAnyLanesAndBlockSizeGiveTheOneLaneAnalysis() throws {
        var variants: [AnalysisOptions] = []
        for curves in [false, true] {
            var options = AnalysisOptions()
            options.curves = curves
            variants.append(options)
        }
        // The bands summed on the lanes, without the matrices (`report --html`).
        var bandsOnly = AnalysisOptions()
        bandsOnly.curveMatrices = false
        variants.append(bandsOnly)
        var smoothed = AnalysisOptions()
        smoothed.smoothing = .ema(alpha: 0.4)
        smoothed.tolerance = .millimetres(0.5)
        smoothed.curves = true
        variants.append(smoothed)
        for path in try traces() {
            // Blocks follow the chunks: small chunks put contacts across block boundaries.
            let chunks97 = try rewritten(path, chunkRows: 97), chunks1000 = try rewritten(path, chunkRows: 1_000)
            let chunks8 = try rewritten(path, chunkRows: 8)
            let runs = [(2, path, 65_536), (2, chunks97, 97), (4, chunks1000, 3_000), (1, chunks8, 8), (2, chunks8, 8)]
            for base in variants {
                var reference = base
                reference.lanes = 1
                let expected = try analyses(path, reference)
                for (lanes, copy, blockRows) in runs {
                    var options = base
                    options.lanes = lanes
                    options.chunkRows = blockRows
                    let found = try analyses(copy, options)
                    XCTAssertEqual(found.count, expected.count)
                    for (one, other) in zip(expected, found) {
                        assertSame(one, other, "\(copy), \(lanes) lanes, blocks of \(blockRows), curves \(base.curves)")
                    }
                }
            }
        }
    }

    /// The bands the lanes sum as contacts finish are the bands of the
    /// finished curve matrices (how they were summed before), and without
    /// the matrices they are the same while the matrices stay empty.
    func testLaneBandsAreTheBandsOfTheCurveMatrices() throws {
        for path in try traces() {
            let chunks97 = try rewritten(path, chunkRows: 97)
            for (lanes, copy, blockRows) in [(1, path, 65_536), (2, path, 65_536), (3, chunks97, 97)] {
                try assertBandsOfMatrices(copy, lanes: lanes, blockRows: blockRows)
            }
        }
    }

    /// `LaneBands` (its own layout, the bin kept while a value is held)
    /// gives the bands of `CurveBands.add`, on random sample-and-hold
    /// curves with NaN gaps, runs at both ends, -0.0 beside 0.0, values on
    /// and beside bin edges, far out of range, a one-point grid.
    func testLaneBandsEqualPointByPointBands() {
        var generator = SystemRandomNumberGenerator()
        let special: [Float] = [0, -0.0, 0.01, 0.0099999, 0.5, 0.99, 1, 1.5, -0.2, 3, -1, .nan,
                                Float.leastNonzeroMagnitude, 0.6, 0.8]
        for points in [1, 2, 7, 64, 200] {
            var lane = LaneBands(points: points), reference = CurveBands(points: points)
            for _ in 0..<400 {
                var curve: [Float] = []
                while curve.count < points {
                    let value = Bool.random(using: &generator) ? special.randomElement(using: &generator)!
                                                               : Float.random(in: -0.1...1.1, using: &generator)
                    curve += Array(repeating: value, count: Int.random(in: 1...max(1, points / 3), using: &generator))
                }
                // Sometimes longer than the grid (the extra points are not added), sometimes shorter.
                let length = Int.random(in: max(0, points - 2)...(points + 2), using: &generator)
                curve = Array(curve.prefix(length))
                let pressClass = PressClass.allCases.randomElement(using: &generator)!
                curve.withUnsafeBufferPointer { lane.add($0, as: pressClass) }
                reference.add(curve, as: pressClass)
            }
            XCTAssertEqual(lane.bands.stored, reference.stored, "\(points) points")
        }
    }

    /// A lane's 16-bit histogram moves its counts aside before they wrap:
    /// a band point every contact reaches counts them all, one past the
    /// flush and far beyond 2^16.
    func testLaneBandsCountPastTheirSixteenBits() {
        var lane = LaneBands(points: 2), reference = CurveBands(points: 2)
        let curve: [Float] = [0.25, 0.75]
        for count in 1...(2 * LaneBands.flushEvery + 3) {
            curve.withUnsafeBufferPointer { lane.add($0, as: .peekPress) }
            if count <= 3 || count > 2 * LaneBands.flushEvery { reference.add(curve, as: .peekPress) }
        }
        let bands = lane.bands
        XCTAssertEqual(bands.count(.peekPress, point: 0), Int64(2 * LaneBands.flushEvery + 3))
        // The histogram at the value's bin holds every contact: its quantiles are that bin's.
        XCTAssertEqual(bands.quantile(.peekPress, point: 1, level: 0.5), reference.quantile(.peekPress, point: 1, level: 0.5))
        let bin = ThresholdBins.bin(0.25)
        XCTAssertEqual(bands.histogram[(PressClass.peekPress.index * 2 + 0) * CurveBands.width + bin], Int64(2 * LaneBands.flushEvery + 3))
    }

    /// `gridTime` divides in 64 bits when the product fits and in 128
    /// otherwise; both give the 128-bit quotient, rounded toward zero, at
    /// the overflow boundary, for spans of years, negative spans and grids
    /// beyond the CLI's 4096 points.
    func testGridTimeIsTheFullWidthQuotient() {
        var generator = SystemRandomNumberGenerator()
        func reference(_ tDown: Int64, _ duration: Int64, _ index: Int, _ points: Int) -> Int64 {
            tDown + Int64(points).dividingFullWidth(duration.multipliedFullWidth(by: Int64(index))).quotient
        }
        var checked = 0
        for points in [2, 3, 64, 200, 4096, 10_000] {
            for index in [0, 1, points / 2, points - 1, points] {
                var durations: [Int64] = [0, 1, -1, 999, 1_000_000_007, Int64.max / 2, Int64.max - 10, -(Int64.max / 3)]
                if index > 1 {
                    // The largest span whose product fits, and the next.
                    durations += [Int64.max / Int64(index), Int64.max / Int64(index) + 1, Int64.min / Int64(index)]
                }
                durations += (0..<50).map { _ in Int64.random(in: -(1 << 40)...Int64.max / 2, using: &generator) }
                for duration in durations {
                    let tDown: Int64 = duration < 0 ? 7 : Int64.random(in: 0...(Int64.max - duration), using: &generator)
                    var open = OpenContact()
                    open.stats = ContactStatistics(Contact(id: 0, slot: 0, trackingID: 1, tool: 0, tDownNs: tDown, tUpNs: -1,
                                                           firstSample: 0, lastSample: 0, sampleCount: 1),
                                                   endNs: tDown &+ duration)
                    XCTAssertEqual(open.gridTime(index, points: points), reference(tDown, duration, index, points),
                                   "duration \(duration), point \(index) of \(points)")
                    checked += 1
                }
            }
        }
        XCTAssertGreaterThan(checked, 1_000)
    }

    /// The curve grid's times stepped point by point (`CurveGridStep`, no
    /// division) are `gridTime`'s at every point: for spans that leave no
    /// remainder and spans that leave `points − 1`, at the largest span
    /// whose product with `points` fits and the next (where stepping
    /// declines), and for zero and negative spans.
    func testSteppedGridTimesAreTheDividedOnes() {
        var generator = SystemRandomNumberGenerator()
        var stepped = 0, declined = 0
        for points in [1, 2, 3, 7, 64, 200, 4096] {
            let p = Int64(points)
            var options = AnalysisOptions()
            options.curvePoints = points
            let setup = OpenContact.Setup(options, lanes: ToleranceLanes(options.tolerance, xAxis: nil, yAxis: nil), hasPressure: true,
                                          grams: nil, bandsFromMatrices: false)
            var durations: [Int64] = [0, 1, -1, p - 1, p, p + 1, 5 * p, 5 * p + (p - 1), 999_999_937,
                                      Int64.max / p, -(Int64.max / 3)]
            // One past the largest span that fits (none past Int64.max for one point).
            if points > 1 { durations.append(Int64.max / p + 1) }
            durations += (0..<40).map { _ in Int64.random(in: 0...(Int64.max / p), using: &generator) }
            for duration in durations {
                let tDown: Int64 = duration < 0 ? 7 : Int64.random(in: 0...(Int64.max - duration), using: &generator)
                var open = OpenContact()
                open.begin(ContactStatistics(Contact(id: 0, slot: 0, trackingID: 1, tool: 0, tDownNs: tDown, tUpNs: tDown &+ duration,
                                                     firstSample: 0, lastSample: 0, sampleCount: 1), endNs: tDown &+ duration),
                           curveBase: 0, alignedBase: 0, setup: setup)
                if open.gridStep.exact { stepped += 1 } else { declined += 1 }
                XCTAssertEqual(open.gridStep.exact, duration >= 0 && duration <= Int64.max / p, "duration \(duration), \(points) points")
                while open.nextPoint < points {
                    XCTAssertEqual(open.nextPointTime, open.gridTime(open.nextPoint, points: points),
                                   "duration \(duration), point \(open.nextPoint) of \(points)")
                    open.advancePoint(points: points)
                }
                if open.gridStep.exact { XCTAssertEqual(open.nextPointTime, tDown + duration, "the last step ends at the span's end") }
            }
        }
        XCTAssertGreaterThan(stepped, 300)
        XCTAssertGreaterThan(declined, 10)
    }

    /// A contact that goes down a second time, in another slot, while still
    /// open in its first: the second beginning overwrites its curve rows, so
    /// the bands come from the finished matrices, as before.
    func testAContactBegunTwiceGivesTheBandsOfItsMatrices() throws {
        let path = try simulatedTrace("twice.h5", seed: 5, presses: 60)
        // The reader closes the file before h5py opens it for writing.
        let (name, contact) = try { () throws -> (String, Contact) in
            let reader = try TraceReader(path: path)
            let name = reader.recordingNames[0]
            // Its first slot stays held to the end: no later contact may go down there.
            let table = try reader.recording(name).contacts()
            return (name, try XCTUnwrap(table.last { contact in
                contact.sampleCount > 20 && !table.contains { $0.id > contact.id && $0.slot == contact.slot }
            }))
        }()
        let middle = Int(contact.firstSample) + Int(contact.sampleCount) / 2
        // From the middle on, its rows are in slot 9 (free), the first of them a down row.
        try runPython("""
            import h5py, numpy, sys
            with h5py.File(sys.argv[1], 'a') as f:
                s = f['recordings/\(name)/samples']
                ids = s['contact'][:]
                later = numpy.nonzero(ids == \(contact.id))[0]
                later = later[later >= \(middle)]
                slots = s['slot'][:]; slots[later] = 9; s['slot'][:] = slots
                flags = s['flags'][:]; flags[later[0]] |= 1; s['flags'][:] = flags
            """, path)
        let analysis = try analyses(path, AnalysisOptions())[0]
        XCTAssertTrue(analysis.warnings.contains { $0.contains("contact \(contact.id) has fewer samples") }, "\(analysis.warnings)")
        for lanes in [1, 2] { try assertBandsOfMatrices(path, lanes: lanes, blockRows: 65_536) }
    }

    /// A contacts row that no samples row names (its rows are another
    /// contact's, which validation allows) never begins: its curve rows
    /// are NaN, as when the matrices were filled with NaN up front
    /// (now each row is filled where its contact begins, the rest after the pass).
    func testAContactThatNeverBeginsHasNaNCurves() throws {
        let path = try simulatedTrace("unbegun.h5", seed: 7, presses: 40)
        let name = try TraceReader(path: path).recordingNames[0]
        // One more contacts row, a copy of the last one with the next id.
        try runPython("""
            import h5py, sys
            with h5py.File(sys.argv[1], 'a') as f:
                c = f['recordings/\(name)/contacts']
                n = c['id'].shape[0]
                for key in ('id', 'first_sample', 'last_sample', 'n_samples', 'slot', 't_down_ns', 't_up_ns', 'tool', 'tracking_id'):
                    c[key].resize((n + 1,))
                    c[key][n] = c[key][n - 1]
                c['id'][n] = n
            """, path)
        for lanes in [1, 2] {
            var options = AnalysisOptions()
            options.lanes = lanes
            let analysis = try analyses(path, options)[0]
            let last = analysis.contacts.count - 1
            XCTAssertEqual(analysis.contacts[last].samples, 0)
            XCTAssertEqual(analysis.curves.count, analysis.contacts.count * options.curvePoints)
            XCTAssertTrue(analysis.curves[(last * options.curvePoints)...].allSatisfy(\.isNaN), "\(lanes) lanes")
            XCTAssertTrue(analysis.alignedCurves.row(last).allSatisfy(\.isNaN), "\(lanes) lanes")
            // The contact before it began, and its curve is written.
            XCTAssertFalse(analysis.curves[((last - 1) * options.curvePoints)..<(last * options.curvePoints)].contains(where: \.isNaN))
        }
        // Its statistics stay those before a first sample (written for every
        // contact before the lanes start), with curves and without.
        let table = try TraceReader(path: path).recording(name).contacts()
        for (lanes, curves) in [(1, false), (2, false), (2, true)] {
            var options = AnalysisOptions()
            options.lanes = lanes
            options.curves = curves
            let contacts = try analyses(path, options)[0].contacts
            let last = table.count - 1
            XCTAssertEqual(contacts[last], ContactStatistics(table[last], endNs: table[last].tUpNs), "\(lanes) lanes, curves \(curves)")
            XCTAssertNil(contacts[last].pressClass)
            XCTAssertGreaterThan(contacts[last - 1].samples, 0)
        }
    }

    /// The bands of an analysis with and without matrices are those summed from its matrices.
    private func assertBandsOfMatrices(_ path: String, lanes: Int, blockRows: Int) throws {
        for smoothing in [Smoothing.none, .ema(alpha: 0.3)] {
            var options = AnalysisOptions()
            options.lanes = lanes
            options.chunkRows = blockRows
            options.smoothing = smoothing
            var bandsOnly = options
            bandsOnly.curveMatrices = false
            let what = "\(path), \(lanes) lanes, \(smoothing)"
            for (analysis, lean) in zip(try analyses(path, options), try analyses(path, bandsOnly)) {
                var curveBands = CurveBands(points: options.curvePoints), alignedBands = CurveBands(points: options.alignedPoints)
                for contact in analysis.contacts {
                    guard let pressClass = contact.pressClass else { continue }
                    let row = Int(contact.id)
                    curveBands.add(analysis.curves[(row * options.curvePoints)..<((row + 1) * options.curvePoints)], as: pressClass)
                    alignedBands.add(analysis.alignedCurves.row(row), as: pressClass)
                }
                XCTAssertEqual(analysis.statistics.curveBands.stored, curveBands.stored, what)
                XCTAssertEqual(analysis.statistics.alignedBands.stored, alignedBands.stored, what)
                XCTAssertEqual(lean.statistics.curveBands.stored, curveBands.stored, what)
                XCTAssertEqual(lean.statistics.alignedBands.stored, alignedBands.stored, what)
                XCTAssertEqual(lean.statistics, analysis.statistics, what)
                XCTAssertEqual(lean.contacts, analysis.contacts, what)
                XCTAssertTrue(lean.curves.isEmpty && lean.alignedCurves.values.isEmpty, what)
                XCTAssertEqual(analysis.curves.count, analysis.contacts.count * options.curvePoints, what)
            }
        }
    }

    /// Damage planted with h5py in the samples of a simulated trace; each is
    /// refused with the first error in row order, whichever lane owns the row.
    func testDamagedSamplesGiveTheSameFirstErrorWithAnyLanes() throws {
        var simulation = SimulationOptions()
        simulation.seed = 5
        simulation.presses = 200
        let good = directory.appendingPathComponent("good.h5").path
        // Chunks (so blocks) of 1000 rows: the rows below lie in different blocks.
        var chunks = TraceWriteOptions()
        chunks.chunkRows = 1_000
        let writer = try TraceWriter(creating: good, options: chunks)
        try writer.write(Simulator.run(simulation).recording)
        try writer.close()
        let reader = try TraceReader(path: good)
        let name = reader.recordingNames[0]
        let trace = try reader.recording(name)
        let contacts = try trace.contacts()
        let ids = try trace.read(TraceSchema.Samples.contact)
        let flags = try trace.read(TraceSchema.Samples.flags)
        let rows = ids.count
        XCTAssertGreaterThan(rows, 10_000)
        // A down row of an odd contact (lane 1 of 2) and its second sample.
        let odd = try XCTUnwrap(contacts.first { $0.id % 2 == 1 && $0.id > 50 && $0.sampleCount > 3 })
        let down = Int(odd.firstSample)
        XCTAssertNotEqual(flags[down] & SampleFlags.down.rawValue, 0)
        let next = try XCTUnwrap((down + 1..<rows).first { ids[$0] == odd.id })
        let middle = rows / 2
        let other = ids[middle] == 7 ? 8 : 7
        let cases: [(String, String, String)] = [
            ("unknown-contact", "s['contact'][\(middle)] = 999999", "samples row \(middle) names contact 999999, which the contacts table lacks"),
            ("negative-contact", "s['contact'][\(middle)] = -3", "samples row \(middle) names contact -3, which the contacts table lacks"),
            ("slot-too-high", "s['slot'][\(middle)] = 32767", "samples row \(middle) has slot 32767"),
            ("slot-negative", "s['slot'][\(middle)] = -5", "samples row \(middle) has slot -5"),
            ("lost-down", "s['flags'][\(down)] = 0",
             "samples row \(down) continues contact \(odd.id) in slot \(odd.slot), which has no open contact with that id"),
            ("second-down", "s['flags'][\(next)] = 1",
             "samples row \(next): contact \(odd.id) goes down in slot \(odd.slot) while contact \(odd.id) is still open there"),
            ("wrong-contact", "s['contact'][\(next)] = \(other)",
             "samples row \(next) continues contact \(other) in slot \(odd.slot), which has no open contact with that id"),
            ("time-beyond", "s['t_ns'][\(middle)] = 2**62 + 5", "samples row \(middle): t_ns 4611686018427387909 is beyond ±2^62 ns"),
            // The first in row order wins: the unknown contact, before a bad slot and a bad time in a later block.
            ("several", "s['contact'][\(middle)] = 999999; s['slot'][\(middle + 10)] = -5; s['t_ns'][\(rows - 1)] = 2**62 + 5",
             "samples row \(middle) names contact 999999, which the contacts table lacks"),
        ]
        for (label, change, message) in cases {
            let path = directory.appendingPathComponent("\(label).h5").path
            try FileManager.default.copyItem(atPath: good, toPath: path)
            try runPython("import h5py, sys\nwith h5py.File(sys.argv[1], 'a') as f:\n    s = f['recordings/\(name)/samples']\n    \(change)\n", path)
            // The bad time of "several" is in a later block (times are checked a block at a time).
            for (lanes, chunkRows) in [(1, 1_000), (2, 1_000), (2, 3_000), (4, 1_000), (4, 5_000)] {
                var options = AnalysisOptions()
                options.lanes = lanes
                options.chunkRows = chunkRows
                XCTAssertThrowsError(try analyses(path, options), "\(label): \(lanes) lanes, blocks of \(chunkRows)") { error in
                    let text = "\(error)"
                    XCTAssertTrue(text.contains(message), "\(label), \(lanes) lanes, blocks of \(chunkRows): expected '\(message)' in \(text)")
                }
            }
        }
    }

    /// Two lanes from two chunks of 65 536 rows (on two or more cores); one below.
    func testAutomaticLanesFromTwoChunks() throws {
        guard ProcessInfo.processInfo.activeProcessorCount >= 2 else { throw XCTSkip("one core: always one lane") }
        XCTAssertEqual(AnalysisOptions.automaticLanes(rows: 2 * 65_536 - 1), 1)
        XCTAssertEqual(AnalysisOptions.automaticLanes(rows: 2 * 65_536), 2)
        XCTAssertEqual(AnalysisOptions.automaticLanes(rows: 2 * 65_536 + 1), 2)
    }
}
