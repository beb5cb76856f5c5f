import Foundation

/// One recording's analysis: per-contact statistics, curve matrices and the
/// mergeable aggregate.
public struct RecordingAnalysis: Sendable {
    public var file: String
    public var name: String
    public var device: DeviceDescription
    /// The axis normalization used, nil on a device without per-contact pressure.
    public var pressureAxis: AxisInfo?
    public var options: AnalysisOptions
    public var lanes: ToleranceLanes
    public var contacts: [ContactStatistics]
    /// `contacts.count × options.curvePoints`, row-major: normalized pressure
    /// held at `t_down + i·duration/K` (NaN without a pressure axis).
    /// Empty unless `options.curves`.
    public var curves: [Float]
    /// `contacts.count × options.alignedPoints`: held at `t_down + j·step`,
    /// NaN at and after the contact's end. Empty unless `options.curves`.
    public var alignedCurves: [Float]
    public var statistics: PressureStatistics
    /// The thresholds the labels were scripted around, if the file says.
    public var scriptedPeek: Double?
    public var scriptedPop: Double?
    public var durationNs: Int64
    public var warnings: [String]
    /// How the file was written: "complete", "partial", or nil while open.
    public var importStatus: ImportStatus?
    /// The sample rows of the first few contacts, for drawing their paths
    /// (empty unless `options.curves`).
    public var paths: [ContactPath] = []
    /// A pen calibration's profile and curve (the HTML pen panel); nil otherwise.
    public var pen: PenProfile? = nil
    /// A `levels` session's result, when the labels hold one (the HTML panel).
    public var levels: LevelsResult? = nil
}

/// One contact's samples as drawn: x, y (device units) and normalized pressure.
public struct ContactPath: Sendable {
    /// The first contacts get a path (HTML draws a few of them).
    public static let contacts = 24
    /// At most this many samples per path.
    public static let points = 1_000
    public var id: Int32
    public var x: [Int32] = []
    public var y: [Int32] = []
    public var pressure: [Float] = []
}

/// Streams a recording's samples table in chunks, in row (time) order,
/// keeping state only for contacts that are down, and measures every contact.
///
/// Contacts are independent, so the per-contact work is split over
/// `AnalysisOptions.lanes` threads by contact id (`LaneSetup.owner`), each
/// reading every block the reader hands out.
/// Lane 0, on the calling thread, also checks every row (ids, slots, which
/// contact holds a slot) and counts the frame statistics, so errors are the
/// same, in the same order, with any number of lanes.
///
/// Memory: a chunk of each column, one `OpenContact` per slot and lane, and
/// the per-contact results (one row of statistics and curves per contact); it
/// does not grow with the number of samples.
public enum PressureAnalyzer {
    public static func analyze(_ recording: TraceRecording, options: AnalysisOptions = AnalysisOptions(),
                               progress: ((_ rowsDone: Int, _ rows: Int) -> Void)? = nil) throws -> RecordingAnalysis {
        if recording.isUnfinished {
            // Live, or its recorder was killed: analysed from the events it kept.
            let rebuilt = try RebuiltRecording(recording)
            var analysis = try analyzeWhole(rebuilt.recording, options: options, progress: progress)
            analysis.file = recording.filePath
            analysis.importStatus = recording.importStatus
            let down = analysis.contacts.filter { $0.tUpNs < 0 }.count
            analysis.warnings.insert("not finished (still being recorded, or its recorder was killed): analysed from the "
                                     + "\(rebuilt.events) events it kept, decoded again; \(down) of its \(analysis.contacts.count) "
                                     + "contacts were still down at its end", at: 0)
            return analysis
        }
        var analysis = try analyzeWhole(recording, options: options, progress: progress)
        // Drawn by the HTML page only, which asks for curves.
        if options.curves { analysis.pen = try PenProfile(recording: recording) }
        return analysis
    }

    /// `analyze` of a recording whose tables are whole.
    private static func analyzeWhole(_ recording: TraceRecording, options: AnalysisOptions,
                                     progress: ((_ rowsDone: Int, _ rows: Int) -> Void)?) throws -> RecordingAnalysis {
        let table = try recording.contacts()
        for (row, contact) in table.enumerated() where contact.id != Int32(row) {
            throw ForceTraceError(file: recording.filePath,
                                  "recording '\(recording.name)': contacts row \(row) has id \(contact.id); ids must be 0, 1, 2, ... in order")
        }
        // The labels are needed only at the end: read while the samples stream.
        // Their errors still come first, as when they were read first.
        let labels = LabelReads(recording, contacts: table.count)
        do {
            return try measure(recording, table: table, options: options, labels: labels, progress: progress)
        } catch {
            _ = try labels.wait()
            throw error
        }
    }

    /// The samples loop, then the labels (read meanwhile) and the tables read after it.
    /// `bandsFromMatrices`: sum the curve bands from the finished matrices
    /// (kept for this), not on the lanes; for a recording that begins a
    /// contact twice, whose curve rows the second beginning overwrites.
    private static func measure(_ recording: TraceRecording, table: [Contact], options: AnalysisOptions, labels labelReads: LabelReads,
                                bandsFromMatrices: Bool = false,
                                progress: ((_ rowsDone: Int, _ rows: Int) -> Void)?) throws -> RecordingAnalysis {
        let device = recording.device
        let recordingEnd = try recording.lastEventTimeNs()

        let pressureAxis = device.contactPressureAxis.flatMap { $0.maximum > $0.minimum ? $0 : nil }
        let positions = device.positionAxes
        let lanes = ToleranceLanes(options.tolerance, xAxis: positions.x, yAxis: positions.y)
        var warnings: [String] = []
        if let warning = lanes.warning { warnings.append(warning) }
        if let axis = device.contactPressureAxis, pressureAxis == nil {
            warnings.append("\(axis.name) has the empty range \(axis.minimum)..\(axis.maximum); pressure is not analysed")
        }
        let resolution = (x: Double(positions.x?.resolution ?? 0), y: Double(positions.y?.resolution ?? 0))

        let contactSetup = OpenContact.Setup(options, lanes: lanes, hasPressure: pressureAxis != nil, bandsFromMatrices: bandsFromMatrices)
        let curvePoints = contactSetup.curvePoints, alignedPoints = contactSetup.alignedPoints
        let rows = try recording.rowCount(.samples)
        let laneCount = options.lanes ?? AnalysisOptions.automaticLanes(rows: rows)
        precondition(laneCount > 0, "at least one lane")
        var buffers = ContactBuffers(table, recordingEnd: recordingEnd, laneCount: laneCount, paths: options.curves, setup: contactSetup)
        // One open contact per slot (index slot + 1; single-touch devices use slot −1).
        let slotCount = max(1, device.slotCount) + 1
        let checks = RowChecks(slots: slotCount, framesCounted: pressureAxis != nil && device.contactProtocol == .slots,
                               file: recording.filePath, recording: recording.name)
        let contactLanes = (0..<laneCount).map { ContactLane(index: $0, slots: slotCount, setup: contactSetup) }
        let bounds = SampleBounds(x: positions.x, y: positions.y, pressure: pressureAxis)

        try buffers.withLaneSetup(contactSetup, bounds: bounds, resolution: resolution) { setup in
            try streamSamples(recording, blockRows: options.chunkRows, pressureAxis: pressureAxis, checks: checks, lanes: contactLanes,
                              setup, rows: rows, progress: progress)
            warnings += finishOpenContacts(contactLanes, slots: checks.slotCount, setup)
        }
        buffers.fillUnbegun(curvePoints: curvePoints, alignedPoints: alignedPoints)
        if options.curves && !bandsFromMatrices && contactLanes.contains(where: { $0.reopened }) {
            var analysis = try measure(recording, table: table, options: options, labels: labelReads, bandsFromMatrices: true, progress: progress)
            if !options.curveMatrices { analysis.curves = []; analysis.alignedCurves = [] }
            return analysis
        }
        let (labels, truth) = try labelReads.wait()
        var statistics = try summarize(recording, contacts: &buffers.results, labels: labels, options: options, lanes: lanes,
                                       checks: checks, outOfRange: contactLanes.reduce(0) { $0 + $1.outOfRange }, durationNs: recordingEnd)
        if options.curves {
            (statistics.curveBands, statistics.alignedBands) = bandsFromMatrices
                ? buffers.matrixBands(curvePoints: curvePoints, alignedPoints: alignedPoints)
                : ContactLane.bands(of: contactLanes, curvePoints: curvePoints, alignedPoints: alignedPoints)
        }
        return RecordingAnalysis(file: recording.filePath, name: recording.name, device: device, pressureAxis: pressureAxis,
                                 options: options, lanes: lanes, contacts: buffers.results, curves: buffers.curves,
                                 alignedCurves: buffers.aligned, statistics: statistics, scriptedPeek: truth.peek,
                                 scriptedPop: truth.pop, durationNs: recordingEnd, warnings: warnings,
                                 importStatus: recording.importStatus, paths: buffers.paths, levels: try recording.levelsResult())
    }

    /// Streams the samples through the lanes, a block at a time: lane 0 and
    /// the row checks on this thread, the other lanes on theirs.
    private static func streamSamples(_ recording: TraceRecording, blockRows: Int, pressureAxis: AxisInfo?, checks: RowChecks,
                                      lanes: [ContactLane], _ setup: LaneSetup, rows: Int,
                                      progress: ((_ rowsDone: Int, _ rows: Int) -> Void)?) throws {
        let workers = LaneWorkers(Array(lanes.dropFirst()), setup: setup)
        defer { workers.finish() }
        // In Double: an axis such as -1..2147483647 spans more than Int32.
        let minimum = Double(pressureAxis?.minimum ?? 0), span = Double(pressureAxis?.maximum ?? 1) - minimum
        var normalized: [Double] = []
        try recording.forEachSampleBuffer(blockRows: max(8, blockRows)) { buffers in
            let block = SampleRows(buffers)
            try TraceValidation.checkTimes(block.tNs, table: "samples", firstRow: block.rows.lowerBound,
                                           file: recording.filePath, recording: recording.name)
            // Slots beyond the device's range: grown before the lanes start on the block.
            var highest: Int16 = .min
            for slot in block.slot { highest = max(highest, slot) }
            let needed = min(Int(highest) + 2, 1 << 15)
            if needed > checks.slotCount {
                checks.grow(to: needed)
                for lane in lanes { lane.grow(to: needed) }
            }
            // Once per block, eight at a time, for every lane.
            if normalized.count < block.rows.count { normalized = [Double](repeating: 0, count: block.rows.count) }
            try normalized.withUnsafeMutableBufferPointer { normalized in
                PressureAnalyzer.normalize(block.pressure, into: normalized, minimum: minimum, span: span)
                let values = UnsafeBufferPointer(normalized)
                workers.start(block, normalized: values)
                do {
                    try checks.run(block, normalized: values, lane: lanes[0], setup)
                } catch {
                    workers.wait()
                    throw error
                }
                workers.wait()
            }
            progress?(block.rows.upperBound, rows)
        }
        checks.endFrame()
    }

    /// Finishes the contacts still open after the last row (the file may be
    /// truncated): in slot order, whichever lane holds them. Returns a warning for each.
    private static func finishOpenContacts(_ lanes: [ContactLane], slots: Int, _ setup: LaneSetup) -> [String] {
        var warnings: [String] = []
        for index in 0..<slots {
            for lane in lanes where lane.open[index].isOpen {
                let id = Int(lane.open[index].id)
                warnings.append("contact \(id) has fewer samples than contacts/last_sample says; the file may be truncated")
                setup.results[id] = lane.finish(slotIndex: index, setup)
            }
        }
        return warnings
    }

    /// The recording's aggregate: its contacts, each labelled first, and the
    /// counts of the samples loop and of the tables read after it.
    private static func summarize(_ recording: TraceRecording, contacts: inout [ContactStatistics], labels: [PressClass?],
                                  options: AnalysisOptions, lanes: ToleranceLanes, checks: RowChecks, outOfRange: Int64,
                                  durationNs: Int64) throws -> PressureStatistics {
        var statistics = PressureStatistics()
        for index in contacts.indices {
            contacts[index].label = labels[index]
            statistics.add(contacts[index], thresholds: options.thresholds)
        }
        statistics.recordings = 1
        for lane in 0..<8 where lanes.applicable[lane] { statistics.laneMotionEvents[lane] = statistics.motionEvents }
        statistics.durationNs = durationNs
        statistics.events = Int64(try recording.rowCount(.events))
        statistics.multiContactFrames = checks.multiContactFrames
        statistics.sharedPressureFrames = checks.sharedPressureFrames
        statistics.outOfRangeSamples = outOfRange
        let markers = try recording.markers()
        statistics.droppedMarkers = Int64(markers.filter { $0.kind == .synDropped }.count)
        statistics.resyncMarkers = Int64(markers.filter { $0.kind == .resync }.count)
        statistics.partialRecordings = recording.importStatus == .partial ? 1 : 0
        return statistics
    }
}

extension PressureAnalyzer {
    /// `(raw − minimum) / span` for a chunk, eight lanes at a time. Division,
    /// not a reciprocal multiply, so results equal numpy's to the bit.
    static func normalize(_ raw: UnsafeBufferPointer<Int32>, into out: UnsafeMutableBufferPointer<Double>,
                          minimum: Double, span: Double) {
        let count = raw.count
        guard count > 0, let source = raw.baseAddress, let target = out.baseAddress else { return }
        let minimumVector = SIMD8<Double>(repeating: minimum), spanVector = SIMD8<Double>(repeating: span)
        var index = 0
        while index + 8 <= count {
            let values = UnsafeRawPointer(source + index).loadUnaligned(as: SIMD8<Int32>.self)
            let result = (SIMD8<Double>(values) - minimumVector) / spanVector
            UnsafeMutableRawPointer(target + index).storeBytes(of: result, as: SIMD8<Double>.self)
            index += 8
        }
        while index < count {
            target[index] = (Double(source[index]) - minimum) / span
            index += 1
        }
    }
}

/// The labels' two readings (per contact, and the ground truth), on a thread of their own.
private final class LabelReads: @unchecked Sendable {
    private let done = NSCondition()
    private var result: Result<([PressClass?], GroundTruth), Error>?

    /// HDF5 calls from two threads take turns under the library's lock; the recording's handles are only read.
    private struct Shared: @unchecked Sendable { let recording: TraceRecording }

    init(_ recording: TraceRecording, contacts: Int) {
        let shared = Shared(recording: recording)
        let thread = Thread { [self] in
            let recording = shared.recording
            let read = Result { (try recording.contactLabels(count: contacts), try recording.groundTruth()) }
            done.lock()
            result = read
            done.signal()
            done.unlock()
        }
        thread.name = "forcetrace.labels"
        thread.start()
    }

    func wait() throws -> ([PressClass?], GroundTruth) {
        done.lock()
        defer { done.unlock() }
        while result == nil { done.wait() }
        return try result!.get()
    }
}

/// A pressure, x and y inside the device's ranges.
struct SampleBounds {
    var x: (Int32, Int32), y: (Int32, Int32), p: (Int32, Int32)

    @inline(__always)
    func contains(x: Int32, y: Int32, pressure: Int32) -> Bool {
        !(x < self.x.0 || x > self.x.1 || y < self.y.0 || y > self.y.1 || pressure < p.0 || pressure > p.1)
    }
}

extension SampleBounds {
    /// The axes' ranges; any value is inside an axis the device lacks.
    init(x: AxisInfo?, y: AxisInfo?, pressure: AxisInfo?) {
        func range(_ axis: AxisInfo?) -> (Int32, Int32) { axis.map { ($0.minimum, $0.maximum) } ?? (.min, .max) }
        self.init(x: range(x), y: range(y), p: range(pressure))
    }
}

/// What the lanes share during the samples loop. Each contact's entries
/// (results, curve rows, path) are written only by the lane that owns it.
struct LaneSetup: @unchecked Sendable {
    let contact: OpenContact.Setup
    /// The lane that measures each contact.
    let owner: UnsafeBufferPointer<UInt8>
    let results: UnsafeMutableBufferPointer<ContactStatistics>
    let lastSample: UnsafeBufferPointer<Int64>
    let tUp: UnsafeBufferPointer<Int64>
    let curves: UnsafeMutableBufferPointer<Float>
    let aligned: UnsafeMutableBufferPointer<Float>
    /// 1 once a contact has begun (written by its lane only).
    let begun: UnsafeMutableBufferPointer<UInt8>
    let paths: UnsafeMutableBufferPointer<ContactPath>
    let bounds: SampleBounds
    let resolution: (x: Double, y: Double)
}

/// The per-contact arrays of the samples loop: those the lanes fill (results,
/// curve matrices, paths, which contacts began) and those they look up (owner,
/// last sample row, t_up). `withLaneSetup` lends them to the lanes as
/// pointers, so that the per-row code checks no bounds and retains nothing.
struct ContactBuffers {
    var results: [ContactStatistics]
    /// The curve matrices, `results.count` rows each, or empty when not kept (`OpenContact.Setup.keepsMatrices`).
    private(set) var curves: [Float], aligned: [Float]
    private(set) var paths: [ContactPath]
    private var begun: [UInt8]
    private let owner: [UInt8], lastSample: [Int64], tUp: [Int64]

    init(_ table: [Contact], recordingEnd: Int64, laneCount: Int, paths: Bool, setup: OpenContact.Setup) {
        // Plain pages, no MADV_HUGEPAGE: in a VM that hands freed memory back to
        // its host (free page reporting), each fresh huge page waits for the
        // host, and 50 MB of results took 0.4-0.8 s instead of 0.05 s
        // (Tests/bench/README.md, "Huge pages").
        results = [ContactStatistics](unsafeUninitializedCapacity: table.count) { buffer, count in
            for (index, contact) in table.enumerated() {
                buffer.initializeElement(at: index, to: ContactStatistics(
                    contact, endNs: contact.tUpNs >= 0 ? contact.tUpNs : max(recordingEnd, contact.tDownNs)))
            }
            count = table.count
        }
        let rows = setup.keepsMatrices ? table.count : 0
        curves = Self.unfilled(rows * setup.curvePoints)
        aligned = Self.unfilled(rows * setup.alignedPoints)
        begun = [UInt8](repeating: 0, count: table.count)
        // Lane 0 also checks every row: it takes one id in 2L − 1, the others two each.
        // (This line's text is the key of a reviewed mutant in Tests/mutation/equivalent.json.)
        let owner = (0..<table.count).map { UInt8(laneCount == 1 ? 0 : ($0 % (2 * laneCount - 1) + 1) / 2) }
        self.owner = owner
        self.paths = paths ? (0..<min(table.count, ContactPath.contacts)).map { ContactPath(id: Int32($0)) } : []
        lastSample = table.map(\.lastSample)
        tUp = table.map(\.tUpNs)
    }

    /// Room for a curve matrix, not yet written: a row is filled with NaN
    /// where its contact first begins (`ContactLane.noteBegin`, on its lane,
    /// so the lanes share the first touch of the pages), the rest by
    /// `fillUnbegun`. The same values as a matrix filled with NaN up front.
    private static func unfilled(_ count: Int) -> [Float] {
        [Float](unsafeUninitializedCapacity: count) { _, initialized in initialized = count }
    }

    /// NaN in the curve rows of the contacts that never began (no samples).
    mutating func fillUnbegun(curvePoints: Int, alignedPoints: Int) {
        guard !curves.isEmpty || !aligned.isEmpty else { return }
        for id in begun.indices where begun[id] == 0 {
            curves.replaceSubrange((id * curvePoints)..<((id + 1) * curvePoints), with: repeatElement(.nan, count: curvePoints))
            aligned.replaceSubrange((id * alignedPoints)..<((id + 1) * alignedPoints), with: repeatElement(.nan, count: alignedPoints))
        }
    }

    /// Runs `body` with the lanes' view of these arrays; its pointers are valid only during `body`.
    mutating func withLaneSetup<Result>(_ contact: OpenContact.Setup, bounds: SampleBounds, resolution: (x: Double, y: Double),
                                        _ body: (LaneSetup) throws -> Result) rethrows -> Result {
        try results.withUnsafeMutableBufferPointer { results in
            try curves.withUnsafeMutableBufferPointer { curves in
                try aligned.withUnsafeMutableBufferPointer { aligned in
                    try paths.withUnsafeMutableBufferPointer { paths in
                        try begun.withUnsafeMutableBufferPointer { begun in
                            try owner.withUnsafeBufferPointer { owner in
                                try lastSample.withUnsafeBufferPointer { lastSample in
                                    try tUp.withUnsafeBufferPointer { tUp in
                                        try body(LaneSetup(contact: contact, owner: owner, results: results, lastSample: lastSample,
                                                           tUp: tUp, curves: curves, aligned: aligned, begun: begun, paths: paths,
                                                           bounds: bounds, resolution: resolution))
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// The curve bands summed from the matrices, row by row (the contacts without a class add nothing).
    func matrixBands(curvePoints: Int, alignedPoints: Int) -> (curve: CurveBands, aligned: CurveBands) {
        var curveBands = CurveBands(points: curvePoints), alignedBands = CurveBands(points: alignedPoints)
        for contact in results {
            guard let pressClass = contact.pressClass else { continue }
            let row = Int(contact.id)
            curveBands.add(curves[(row * curvePoints)..<((row + 1) * curvePoints)], as: pressClass)
            alignedBands.add(aligned[(row * alignedPoints)..<((row + 1) * alignedPoints)], as: pressClass)
        }
        return (curveBands, alignedBands)
    }
}

/// One lane's open contacts, one per slot, and its count of samples outside the axes' ranges.
final class ContactLane: @unchecked Sendable {
    let index: Int
    private(set) var open: UnsafeMutableBufferPointer<OpenContact>
    /// Set at a row that lane 0's checks refuse: it stops there, and lane 0 throws.
    private(set) var halted = false
    private(set) var outOfRange: Int64 = 0
    /// Without curve matrices: the curve rows of the open contacts, one per slot.
    private(set) var targets: CurveTargets
    /// The bands of the contacts this lane finished.
    private(set) var curveBands: LaneBands, alignedBands: LaneBands
    /// Whether a contact began a second time (its curve rows then differ from what one beginning writes).
    private(set) var reopened = false

    init(index: Int, slots: Int, setup: OpenContact.Setup) {
        self.index = index
        open = .allocate(capacity: slots)
        open.initialize(repeating: OpenContact())
        targets = CurveTargets(slots: setup.keepsMatrices ? 0 : slots, setup)
        curveBands = LaneBands(points: setup.lanesAddBands ? setup.curvePoints : 0)
        alignedBands = LaneBands(points: setup.lanesAddBands ? setup.alignedPoints : 0)
    }

    deinit {
        _ = open.deinitialize()
        open.deallocate()
        targets.curves.deallocate(); targets.aligned.deallocate()
    }

    /// More slots, closed. Only while no lane runs.
    func grow(to slots: Int) {
        guard slots > open.count else { return }
        let grown = UnsafeMutableBufferPointer<OpenContact>.allocate(capacity: slots)
        _ = grown.moveInitialize(fromContentsOf: open)
        UnsafeMutableBufferPointer(rebasing: grown[open.count...]).initialize(repeating: OpenContact())
        open.deallocate()
        open = grown
        targets.grow(to: slots)
    }

    /// The curve rows `OpenContact.hold` writes into: the matrices, or this lane's rows by slot.
    func curveTargets(_ setup: LaneSetup) -> CurveTargets {
        setup.contact.keepsMatrices ? CurveTargets(matrices: setup) : targets
    }

    /// The bands all lanes summed. Integer sums: the same whichever lane added which contact.
    static func bands(of lanes: [ContactLane], curvePoints: Int, alignedPoints: Int) -> (curve: CurveBands, aligned: CurveBands) {
        (lanes.reduce(CurveBands(points: curvePoints)) { $0 + $1.curveBands.bands },
         lanes.reduce(CurveBands(points: alignedPoints)) { $0 + $1.alignedBands.bands })
    }

    /// Marks contact `id` begun; a second beginning is remembered.
    @inline(never)
    func noteBegin(_ id: Int, _ setup: LaneSetup) {
        if setup.begun[id] != 0 {
            reopened = true
        } else if setup.contact.keepsMatrices {
            // The matrices start unwritten (`ContactBuffers.unfilled`).
            let curvePoints = setup.contact.curvePoints, alignedPoints = setup.contact.alignedPoints
            UnsafeMutableBufferPointer(rebasing: setup.curves[(id * curvePoints)..<((id + 1) * curvePoints)]).initialize(repeating: .nan)
            UnsafeMutableBufferPointer(rebasing: setup.aligned[(id * alignedPoints)..<((id + 1) * alignedPoints)]).initialize(repeating: .nan)
        }
        setup.begun[id] = 1
    }

    /// Finishes the contact open in `slotIndex` and adds its curves to this lane's bands.
    func finish(slotIndex: Int, _ setup: LaneSetup) -> ContactStatistics {
        let targets = curveTargets(setup)
        let contact = open[slotIndex].finish(setup: setup.contact, resolution: setup.resolution,
                                             curve: targets.curves, aligned: targets.aligned)
        if setup.contact.lanesAddBands, let pressClass = contact.pressClass {
            let curveBase = open[slotIndex].curveBase, alignedBase = open[slotIndex].alignedBase
            // Every curve point is written by now; aligned points from the contact's end on stay NaN (not written).
            curveBands.add(UnsafeBufferPointer(rebasing: targets.curves[curveBase..<(curveBase + setup.contact.curvePoints)]), as: pressClass)
            alignedBands.add(UnsafeBufferPointer(rebasing: targets.aligned[alignedBase..<(alignedBase + open[slotIndex].nextAligned)]),
                             as: pressClass)
        }
        return contact
    }

    /// The rows of `block` whose contacts this lane owns (lanes other than 0).
    func run(_ block: SampleRows, normalized: UnsafeBufferPointer<Double>, _ setup: LaneSetup) {
        guard !halted else { return }
        let open = self.open, owner = setup.owner, lane = UInt8(index), contacts = setup.results.count
        let targets = curveTargets(setup)
        var outOfRange = self.outOfRange
        var completed = true
        for index in 0..<block.rows.count {
            let id = Int(block.contact[index])
            // Lane 0 throws for this row, or an earlier one.
            guard id >= 0 && id < contacts else { completed = false; break }
            guard owner[id] == lane else { continue }
            let slotIndex = Int(block.slot[index]) + 1
            guard slotIndex >= 0 && slotIndex < open.count,
                  Self.step(block, index, id: id, slotIndex: slotIndex, normalized: normalized[index], open: open,
                            targets: targets, lane: self, setup, outOfRange: &outOfRange) else {
                completed = false
                break
            }
        }
        self.outOfRange = outOfRange
        if !completed { halted = true }
    }

    /// Adds row `index` to contact `id`; false when the row does not continue
    /// what the slot holds (lane 0 refuses such a row first).
    @inline(__always)
    static func step(_ block: SampleRows, _ index: Int, id: Int, slotIndex: Int, normalized: Double,
                     open: UnsafeMutableBufferPointer<OpenContact>, targets: CurveTargets, lane: ContactLane,
                     _ setup: LaneSetup, outOfRange: inout Int64) -> Bool {
        let x = block.x[index], y = block.y[index], pressure = block.pressure[index], flags = block.flags[index]
        if !setup.bounds.contains(x: x, y: y, pressure: pressure) { outOfRange += 1 }
        let isDown = flags & SampleFlags.down.rawValue != 0
        if isDown {
            if open[slotIndex].isOpen { return false }
            lane.noteBegin(id, setup)
            // The contact's row: by id in the matrices, by slot in the lane's own rows.
            let row = setup.contact.keepsMatrices ? id : slotIndex
            open[slotIndex].begin(setup.results[id], curveBase: row * setup.contact.curvePoints,
                                  alignedBase: row * setup.contact.alignedPoints)
        } else if !open[slotIndex].isOpen || open[slotIndex].id != Int32(id) {
            return false
        }
        if id < setup.paths.count && setup.paths[id].x.count < ContactPath.points {
            setup.paths[id].x.append(x); setup.paths[id].y.append(y); setup.paths[id].pressure.append(Float(normalized))
        }
        open[slotIndex].add(time: block.tNs[index], x: x, y: y, pressure: pressure, normalized: normalized, flags: flags,
                            isDown: isDown, setup: setup.contact, curve: targets.curves, aligned: targets.aligned)
        if Int64(block.rows.lowerBound + index) == setup.lastSample[id] {
            setup.results[id] = lane.finish(slotIndex: slotIndex, setup)
        }
        return true
    }
}

/// Lane 0's share of every row: the checks (ids, slots, which contact holds
/// each slot) in row order, and the frame statistics of the data quality.
final class RowChecks {
    private(set) var slotCount: Int
    /// The contact each slot holds, −1 for none.
    private var holder: UnsafeMutableBufferPointer<Int32>
    /// Pressure each slot holds, and until when its contact is down.
    private var slotPressure: UnsafeMutableBufferPointer<Int32>
    private var slotUntil: UnsafeMutableBufferPointer<Int64>
    /// Slots a contact went down in: the only ones a frame can count.
    private var usedSlots: [Int] = []
    private var frameTime = Int64.min
    private let framesCounted: Bool
    private let file: String, recording: String
    private(set) var multiContactFrames: Int64 = 0
    private(set) var sharedPressureFrames: Int64 = 0

    init(slots: Int, framesCounted: Bool, file: String, recording: String) {
        slotCount = slots
        holder = .allocate(capacity: slots); holder.initialize(repeating: -1)
        slotPressure = .allocate(capacity: slots); slotPressure.initialize(repeating: 0)
        slotUntil = .allocate(capacity: slots); slotUntil.initialize(repeating: .min)
        self.framesCounted = framesCounted
        self.file = file
        self.recording = recording
    }

    deinit {
        holder.deallocate(); slotPressure.deallocate(); slotUntil.deallocate()
    }

    func grow(to slots: Int) {
        guard slots > slotCount else { return }
        func grown<T>(_ buffer: UnsafeMutableBufferPointer<T>, _ fill: T) -> UnsafeMutableBufferPointer<T> {
            let new = UnsafeMutableBufferPointer<T>.allocate(capacity: slots)
            _ = new.moveInitialize(fromContentsOf: buffer)
            UnsafeMutableBufferPointer(rebasing: new[buffer.count...]).initialize(repeating: fill)
            buffer.deallocate()
            return new
        }
        holder = grown(holder, -1); slotPressure = grown(slotPressure, 0); slotUntil = grown(slotUntil, .min)
        slotCount = slots
    }

    private func fail(_ message: String) -> ForceTraceError { ForceTraceError(file: file, "recording '\(recording)': \(message)") }

    /// Ends the last frame (after the last block).
    func endFrame() {
        var counts: (multi: Int64, shared: Int64) = (multiContactFrames, sharedPressureFrames)
        Self.endFrame(frameTime, used: usedSlots, slotUntil: slotUntil, slotPressure: slotPressure, framesCounted: framesCounted,
                      counts: &counts)
        (multiContactFrames, sharedPressureFrames) = counts
    }

    /// A frame with two or more contacts down; shared when their pressures are all equal.
    @inline(__always)
    private static func endFrame(_ frameTime: Int64, used: [Int], slotUntil: UnsafeMutableBufferPointer<Int64>,
                                 slotPressure: UnsafeMutableBufferPointer<Int32>, framesCounted: Bool,
                                 counts: inout (multi: Int64, shared: Int64)) {
        guard framesCounted, frameTime != .min, used.count >= 2 else { return }
        var down = 0, first: Int32 = 0, equal = true
        for index in used where slotUntil[index] > frameTime {
            if down == 0 { first = slotPressure[index] } else if slotPressure[index] != first { equal = false }
            down += 1
        }
        if down >= 2 { counts.multi += 1; if equal { counts.shared += 1 } }
    }

    /// Checks every row of `block` and adds lane 0's rows to their contacts.
    func run(_ block: SampleRows, normalized: UnsafeBufferPointer<Double>, lane: ContactLane, _ setup: LaneSetup) throws {
        let open = lane.open, owner = setup.owner, contacts = setup.results.count
        let targets = lane.curveTargets(setup)
        let holder = self.holder, slotPressure = self.slotPressure, slotUntil = self.slotUntil, slotCount = self.slotCount
        let framesCounted = self.framesCounted
        let times = block.tNs, ids = block.contact, slots = block.slot
        // Locals, written back at the end: no access checks per row.
        var frameTime = self.frameTime, used = usedSlots
        var counts: (multi: Int64, shared: Int64) = (multiContactFrames, sharedPressureFrames)
        var outOfRange: Int64 = 0
        defer {
            self.frameTime = frameTime
            usedSlots = used
            (multiContactFrames, sharedPressureFrames) = counts
            lane.addOutOfRange(outOfRange)
        }
        for index in 0..<block.rows.count {
            let row = block.rows.lowerBound + index
            let id = Int(ids[index])
            guard id >= 0 && id < contacts else { throw fail("samples row \(row) names contact \(id), which the contacts table lacks") }
            let slotIndex = Int(slots[index]) + 1
            // The slots were grown to the block's highest below 2^15 (RowChecks.grow).
            guard slotIndex < slotCount && slotIndex >= 0 else { throw fail("samples row \(row) has slot \(slots[index])") }
            if times[index] != frameTime {
                Self.endFrame(frameTime, used: used, slotUntil: slotUntil, slotPressure: slotPressure, framesCounted: framesCounted,
                              counts: &counts)
                frameTime = times[index]
            }
            if block.flags[index] & SampleFlags.down.rawValue != 0 {
                if holder[slotIndex] >= 0 {
                    throw fail("samples row \(row): contact \(id) goes down in slot \(slots[index]) while contact \(holder[slotIndex]) is still open there")
                }
                holder[slotIndex] = Int32(id)
                if slotUntil[slotIndex] == .min && !used.contains(slotIndex) { used.append(slotIndex) }
                slotUntil[slotIndex] = setup.tUp[id] >= 0 ? setup.tUp[id] : .max
            } else if holder[slotIndex] != Int32(id) {
                throw fail("samples row \(row) continues contact \(id) in slot \(slots[index]), which has no open contact with that id")
            }
            slotPressure[slotIndex] = block.pressure[index]
            if owner[id] == 0 {
                let added = ContactLane.step(block, index, id: id, slotIndex: slotIndex, normalized: normalized[index], open: open,
                                             targets: targets, lane: lane,
                                             setup, outOfRange: &outOfRange)
                assert(added, "lane 0 refused a row the checks passed")
            }
            if Int64(row) == setup.lastSample[id] { holder[slotIndex] = -1 }
        }
    }
}

extension ContactLane {
    func addOutOfRange(_ count: Int64) { outOfRange += count }
}

/// The threads of lanes 1...: each block is handed to all of them at once,
/// and `wait` returns when every one is done with it (the block's buffers
/// are only valid until then).
final class LaneWorkers: @unchecked Sendable {
    private let lanes: [ContactLane]
    private let setup: LaneSetup
    private let state = NSCondition()
    private var block: SampleRows?
    private var normalized = UnsafeBufferPointer<Double>(start: nil, count: 0)
    private var generation = 0
    private var pending = 0
    private var running = 0
    private var stopping = false

    init(_ lanes: [ContactLane], setup: LaneSetup) {
        self.lanes = lanes
        self.setup = setup
        running = lanes.count
        for lane in lanes {
            let thread = Thread { [self] in work(lane) }
            thread.name = "forcetrace.analysis-lane"
            thread.start()
        }
    }

    func start(_ block: SampleRows, normalized: UnsafeBufferPointer<Double>) {
        guard !lanes.isEmpty else { return }
        state.lock()
        self.block = block
        self.normalized = normalized
        generation += 1
        pending = lanes.count
        state.broadcast()
        state.unlock()
    }

    func wait() {
        guard !lanes.isEmpty else { return }
        state.lock()
        while pending > 0 { state.wait() }
        block = nil
        state.unlock()
    }

    /// Stops the threads and waits until they have left.
    func finish() {
        state.lock()
        stopping = true
        state.broadcast()
        while running > 0 { state.wait() }
        state.unlock()
    }

    private func work(_ lane: ContactLane) {
        var seen = 0
        state.lock()
        while true {
            while !stopping && generation == seen { state.wait() }
            if stopping { break }
            seen = generation
            let block = self.block!, normalized = self.normalized
            state.unlock()
            lane.run(block, normalized: normalized, setup)
            state.lock()
            pending -= 1
            if pending == 0 { state.broadcast() }
        }
        running -= 1
        state.broadcast()
        state.unlock()
    }
}

/// The running state of one contact that is down.
struct OpenContact {
    struct Setup {
        var thresholds: Thresholds
        var smoothing: Smoothing
        /// `ToleranceLanes.x` and `.y`: only the vectors, nothing to retain per call.
        var lanes: (x: SIMD8<Double>, y: SIMD8<Double>)
        var hasPressure: Bool
        var curvePoints: Int
        var alignedPoints: Int
        var alignedStepNs: Int64
        /// Curve rows by contact id in the matrices, else by slot in the lane's `CurveTargets`.
        var keepsMatrices: Bool
        /// Whether each lane sums the bands of the contacts it finishes.
        var lanesAddBands: Bool

        /// Only a saved report holds the curve matrices; without one the lanes
        /// hold each open contact's curve in a row per slot, and add it to their bands.
        init(_ options: AnalysisOptions, lanes: ToleranceLanes, hasPressure: Bool, bandsFromMatrices: Bool) {
            thresholds = options.thresholds
            smoothing = options.smoothing
            self.lanes = (lanes.x, lanes.y)
            self.hasPressure = hasPressure
            curvePoints = options.curves ? options.curvePoints : 0
            alignedPoints = options.curves ? options.alignedPoints : 0
            alignedStepNs = options.alignedStepNs
            keepsMatrices = options.curveMatrices || bandsFromMatrices
            lanesAddBands = options.curves && !bandsFromMatrices
        }
    }

    var isOpen = false
    var stats = ContactStatistics(Contact(id: -1, slot: -1, trackingID: -1, tool: 0, tDownNs: 0, tUpNs: -1, firstSample: 0, lastSample: -1,
                                          sampleCount: 0), endNs: 0)
    var id: Int32 { stats.id }
    var downX: Int32 = 0, downY: Int32 = 0
    var previousX: Int32 = 0, previousY: Int32 = 0
    var signal = 0.0
    var peekArmed = true, popArmed = true
    /// Stationary events since the running peak, not yet known to be before the final peak.
    var pendingStationary = SIMD8<Int64>(repeating: 0)
    var held: Float = .nan
    var nextPoint = 0
    var nextAligned = 0
    /// Where this contact's curve rows start in the buffers `hold` writes.
    var curveBase = 0, alignedBase = 0

    mutating func begin(_ contact: ContactStatistics, curveBase: Int, alignedBase: Int) {
        self = OpenContact()
        isOpen = true
        stats = contact
        self.curveBase = curveBase
        self.alignedBase = alignedBase
    }

    /// Curve grid point `index` of `points` over the contact's span.
    @inline(__always)
    func gridTime(_ index: Int, points: Int) -> Int64 {
        // 128-bit product: a contact held across a clock jump lasts years,
        // and years × 4096 points overflow 64 bits. The quotient is at most
        // the duration, which fits (TraceValidation bounds the times).
        // A product that fits 64 bits divides there: the same quotient, rounded toward zero.
        let (short, overflow) = stats.durationNs.multipliedReportingOverflow(by: Int64(index))
        if !overflow { return stats.tDownNs + short / Int64(points) }
        let product = stats.durationNs.multipliedFullWidth(by: Int64(index))
        return stats.tDownNs + Int64(points).dividingFullWidth(product).quotient
    }

    /// Holds the previous value on every grid point before `time`.
    @inline(__always)
    mutating func hold(until time: Int64, setup: Setup, curve: UnsafeMutableBufferPointer<Float>,
                       aligned: UnsafeMutableBufferPointer<Float>) {
        while nextPoint < setup.curvePoints && gridTime(nextPoint, points: setup.curvePoints) < time {
            curve[curveBase + nextPoint] = held
            nextPoint += 1
        }
        while nextAligned < setup.alignedPoints && stats.tDownNs + Int64(nextAligned) * setup.alignedStepNs < time {
            aligned[alignedBase + nextAligned] = held
            nextAligned += 1
        }
    }

    mutating func add(time: Int64, x: Int32, y: Int32, pressure: Int32, normalized: Double, flags: UInt8, isDown: Bool,
                      setup: Setup, curve: UnsafeMutableBufferPointer<Float>, aligned: UnsafeMutableBufferPointer<Float>) {
        stats.samples += 1
        if isDown {
            downX = x; downY = y
        } else {
            stats.motionEvents += 1
            if flags & SampleFlags.pressureChanged.rawValue != 0 {
                // One comparison for every tolerance lane at once.
                let dx = SIMD8<Double>(repeating: Double(abs(Int64(x) - Int64(previousX))))
                let dy = SIMD8<Double>(repeating: Double(abs(Int64(y) - Int64(previousY))))
                let within = (dx .<= setup.lanes.x) .& (dy .<= setup.lanes.y)
                pendingStationary &+= SIMD8<Int64>(repeating: 0).replacing(with: 1, where: within)
            }
            stats.maxDx = max(stats.maxDx, abs(Int64(x) - Int64(downX)))
            stats.maxDy = max(stats.maxDy, abs(Int64(y) - Int64(downY)))
        }
        previousX = x; previousY = y
        guard setup.hasPressure else { return }
        if setup.curvePoints > 0 || setup.alignedPoints > 0 { hold(until: time, setup: setup, curve: curve, aligned: aligned) }
        held = Float(normalized)
        if isDown || pressure > stats.peakRaw {
            stats.peakRaw = pressure
            stats.peakNorm = normalized
            stats.timeToPeakNs = time - stats.tDownNs
            stats.stationaryRise &+= pendingStationary
            pendingStationary = SIMD8(repeating: 0)
        }
        switch setup.smoothing {
        case .none: signal = normalized
        case .ema(let alpha): signal = isDown ? normalized : alpha * normalized + (1 - alpha) * signal
        }
        if isDown || signal > (stats.signalPeak ?? -.infinity) { stats.signalPeak = signal }
        let thresholds = setup.thresholds
        if peekArmed {
            if signal >= thresholds.peek {
                stats.peekCrossings += 1
                if stats.tPeekNs == nil { stats.tPeekNs = time - stats.tDownNs }
                peekArmed = false
            }
        } else if signal < thresholds.peek - thresholds.hysteresis {
            peekArmed = true
        }
        if popArmed {
            if signal >= thresholds.pop {
                stats.popCrossings += 1
                if stats.tPopNs == nil { stats.tPopNs = time - stats.tDownNs }
                popArmed = false
            }
        } else if signal < thresholds.pop - thresholds.hysteresis {
            popArmed = true
        }
    }

    mutating func finish(setup: Setup, resolution: (x: Double, y: Double), curve: UnsafeMutableBufferPointer<Float>,
                         aligned: UnsafeMutableBufferPointer<Float>) -> ContactStatistics {
        isOpen = false
        stats.stationary = stats.stationaryRise &+ pendingStationary
        if setup.hasPressure {
            hold(until: stats.endNs, setup: setup, curve: curve, aligned: aligned)
            // The span's last grid points lie before its end; a zero-length span holds the down value.
            while nextPoint < setup.curvePoints { curve[curveBase + nextPoint] = held; nextPoint += 1 }
            if let peak = stats.signalPeak {
                stats.pressClass = PressClass.of(peak: peak, peek: setup.thresholds.peek, pop: setup.thresholds.pop)
            }
        }
        if resolution.x > 0 && resolution.y > 0 {
            stats.displacementMM = max(Double(stats.maxDx) / resolution.x, Double(stats.maxDy) / resolution.y)
        }
        let within = (SIMD8<Double>(repeating: Double(stats.maxDx)) .<= setup.lanes.x) .& (SIMD8<Double>(repeating: Double(stats.maxDy)) .<= setup.lanes.y)
        stats.withinTolerance = SIMD8<Int64>(repeating: 0).replacing(with: 1, where: within)
        return stats
    }
}

/// The samples columns the analysis reads, found by name once per block
/// (`SampleBuffers`), for the per-row loops.
struct SampleRows {
    let rows: Range<Int>
    let tNs: UnsafeBufferPointer<Int64>
    let contact: UnsafeBufferPointer<Int32>
    let slot: UnsafeBufferPointer<Int16>
    let x: UnsafeBufferPointer<Int32>
    let y: UnsafeBufferPointer<Int32>
    let pressure: UnsafeBufferPointer<Int32>
    let flags: UnsafeBufferPointer<UInt8>

    init(_ block: SampleBuffers) {
        typealias S = TraceSchema.Samples
        rows = block.rows
        tNs = block[S.tNs]; contact = block[S.contact]; slot = block[S.slot]
        x = block[S.x]; y = block[S.y]; pressure = block[S.pressure]; flags = block[S.flags]
    }
}

/// The curve rows `OpenContact.hold` writes into: the matrices (by contact
/// id), or a lane's own rows, one per slot, when no matrix is kept.
struct CurveTargets {
    var curves: UnsafeMutableBufferPointer<Float>
    var aligned: UnsafeMutableBufferPointer<Float>
    private let curvePoints: Int, alignedPoints: Int
    /// Whether the rows are a lane's (allocated here), not the matrices.
    let ownedBySlot: Bool

    init(matrices setup: LaneSetup) {
        curves = setup.curves
        aligned = setup.aligned
        curvePoints = setup.contact.curvePoints
        alignedPoints = setup.contact.alignedPoints
        ownedBySlot = false
    }

    /// `slots` rows of each (the lane deallocates them); none when 0, for a lane that writes the matrices.
    init(slots: Int, _ setup: OpenContact.Setup) {
        curvePoints = setup.curvePoints
        alignedPoints = setup.alignedPoints
        ownedBySlot = slots > 0
        curves = .allocate(capacity: slots * curvePoints)
        aligned = .allocate(capacity: slots * alignedPoints)
    }

    /// More slots' rows, keeping the open contacts' rows where they are.
    mutating func grow(to slots: Int) {
        guard ownedBySlot else { return }
        func grown(_ buffer: UnsafeMutableBufferPointer<Float>, _ points: Int) -> UnsafeMutableBufferPointer<Float> {
            let new = UnsafeMutableBufferPointer<Float>.allocate(capacity: slots * points)
            _ = new.initialize(fromContentsOf: buffer)
            buffer.deallocate()
            return new
        }
        curves = grown(curves, curvePoints)
        aligned = grown(aligned, alignedPoints)
    }
}
