import Foundation

/// One recording's analysis: per-contact statistics, curve matrices and the
/// mergeable aggregate.
public struct RecordingAnalysis: Sendable {
    public var file: String
    public var name: String
    public var device: DeviceDescription
    /// The axis normalization used, nil on a device without per-contact pressure.
    public var pressureAxis: AxisInfo?
    /// The pressure axis's grams, where its resolution gives them.
    public var grams: GramScale? { GramScale(axis: pressureAxis) }
    public var options: AnalysisOptions
    public var lanes: ToleranceLanes
    public var contacts: [ContactStatistics]
    /// `contacts.count × options.curvePoints`, row-major: normalized pressure
    /// held at `t_down + i·duration/K` (NaN without a pressure axis).
    /// Empty unless `options.curves`.
    public var curves: [Float]
    /// Held at `t_down + j·step`, each contact's grid points before its end.
    /// Empty unless `options.curves`.
    public var alignedCurves: AlignedCurves
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
    /// A force session's analysis, when a scale's table is beside the pen (the HTML panel).
    public var force: ForceAnalysis? = nil
    /// A `levels` session's result, when the labels hold one (the HTML panel).
    public var levels: LevelsResult? = nil
    /// Said on stderr after a report: the recording holds common key presses
    /// as typed (`TraceRecording.unobfuscatedKeysWarning`); set by `report`'s
    /// analysis, which has the recording open.
    public var keyWarning: String? = nil
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
            var analysis = try analyzeWhole(rebuilt.recording, options: options, panels: false, progress: progress)
            analysis.file = recording.filePath
            analysis.importStatus = recording.importStatus
            let down = analysis.contacts.filter { $0.tUpNs < 0 }.count
            analysis.warnings.insert("not finished (still being recorded, or its recorder was killed): analysed from the "
                                     + "\(rebuilt.events) events it kept, decoded again; \(down) of its \(analysis.contacts.count) "
                                     + "contacts were still down at its end", at: 0)
            return analysis
        }
        // The pen and force panels are drawn by the HTML page only, which asks for curves.
        return try analyzeWhole(recording, options: options, panels: options.curves, progress: progress)
    }

    /// `analyze` of a recording whose tables are whole.
    /// - Parameter panels: also the pen profile and the force analysis (`RecordingAnalysis.pen`, `.force`).
    private static func analyzeWhole(_ recording: TraceRecording, options: AnalysisOptions, panels: Bool,
                                     progress: ((_ rowsDone: Int, _ rows: Int) -> Void)?) throws -> RecordingAnalysis {
        let table = try recording.contacts()
        for (row, contact) in table.enumerated() where contact.id != Int32(row) {
            throw ForceTraceError(file: recording.filePath,
                                  "recording '\(recording.name)': contacts row \(row) has id \(contact.id); ids must be 0, 1, 2, ... in order")
        }
        // The labels are needed only at the end: read while the samples stream,
        // and the panels after them. Their errors still come first, as when
        // they were read first; the panels' come after the analysis's, as when
        // they were made after it.
        let labels = LabelReads(recording, contacts: table.count, panels: panels)
        do {
            var analysis = try measure(recording, table: table, options: options, labels: labels, progress: progress)
            (analysis.pen, analysis.force) = try labels.panels()
            return analysis
        } catch {
            // The thread is done with the recording only once its panels are made.
            _ = try? labels.panels()
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
        let recordingEnd = recording.lastEventTimeNs()

        let pressureAxis = device.contactPressureAxis.flatMap { $0.maximum > $0.minimum ? $0 : nil }
        let positions = device.positionAxes
        let lanes = ToleranceLanes(options.tolerance, xAxis: positions.x, yAxis: positions.y)
        var warnings: [String] = []
        if let warning = lanes.warning { warnings.append(warning) }
        if let axis = device.contactPressureAxis, pressureAxis == nil {
            warnings.append("\(axis.name) has the empty range \(axis.minimum)..\(axis.maximum); pressure is not analysed")
        }
        let resolution = (x: Double(positions.x?.resolution ?? 0), y: Double(positions.y?.resolution ?? 0))

        let contactSetup = OpenContact.Setup(options, lanes: lanes, hasPressure: pressureAxis != nil,
                                             grams: GramScale(axis: pressureAxis), bandsFromMatrices: bandsFromMatrices)
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
        buffers.fillUnbegun(curvePoints: curvePoints)
        if options.curves && !bandsFromMatrices && contactLanes.contains(where: { $0.reopened }) {
            var analysis = try measure(recording, table: table, options: options, labels: labelReads, bandsFromMatrices: true, progress: progress)
            if !options.curveMatrices { analysis.curves = []; analysis.alignedCurves = .empty }
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
        var previousTime = Int64.min
        try recording.forEachSampleBuffer(blockRows: max(8, blockRows)) { buffers in
            let block = SampleRows(buffers)
            try TraceValidation.checkTimes(block.tNs, table: "samples", firstRow: block.rows.lowerBound,
                                           file: recording.filePath, recording: recording.name)
            previousTime = try TraceValidation.checkOrder(block.tNs, after: previousTime, table: "samples", firstRow: block.rows.lowerBound,
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

/// The labels' two readings (per contact, and the ground truth), on a
/// thread of their own; then, when asked, the HTML page's pen profile and
/// force analysis, which read only their own tables.
private final class LabelReads: @unchecked Sendable {
    private let done = NSCondition()
    private var result: Result<([PressClass?], GroundTruth), Error>?
    private var drawn: Result<(PenProfile?, ForceAnalysis?), Error>?

    /// HDF5 calls from two threads take turns under the library's lock; the recording's handles are only read.
    private struct Shared: @unchecked Sendable { let recording: TraceRecording }

    init(_ recording: TraceRecording, contacts: Int, panels: Bool) {
        let shared = Shared(recording: recording)
        let thread = Thread { [self] in
            let recording = shared.recording
            let read = Result { (try recording.contactLabels(count: contacts), try recording.groundTruth()) }
            done.lock()
            result = read
            done.broadcast()
            done.unlock()
            // Damaged labels are reported first: no panel is made of them.
            let panel = Result { () throws -> (PenProfile?, ForceAnalysis?) in
                guard panels, case .success = read else { return (nil, nil) }
                return (try PenProfile(recording: recording), try ForceAnalysis.analyze(recording))
            }
            done.lock()
            drawn = panel
            done.broadcast()
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

    /// The pen profile and force analysis, once made (nil, nil when not asked for).
    func panels() throws -> (PenProfile?, ForceAnalysis?) {
        done.lock()
        defer { done.unlock() }
        while drawn == nil { done.wait() }
        return try drawn!.get()
    }

}
