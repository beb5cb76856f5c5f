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
/// Memory: a chunk of each column, one `OpenContact` per slot, and the
/// per-contact results (one row of statistics and curves per contact); it
/// does not grow with the number of samples.
public enum PressureAnalyzer {
    public static func analyze(_ recording: TraceRecording, options: AnalysisOptions = AnalysisOptions(),
                               progress: ((_ rowsDone: Int, _ rows: Int) -> Void)? = nil) throws -> RecordingAnalysis {
        let device = recording.device
        let file = recording.filePath
        func fail(_ message: String) -> ForceTraceError { ForceTraceError(file: file, "recording '\(recording.name)': \(message)") }

        let table = try recording.contacts()
        for (row, contact) in table.enumerated() where contact.id != Int32(row) {
            throw fail("contacts row \(row) has id \(contact.id); ids must be 0, 1, 2, ... in order")
        }
        let labels = try recording.contactLabels(count: table.count)
        let truth = try recording.groundTruth()
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

        var results = table.map { contact in
            ContactStatistics(id: contact.id, slot: contact.slot, trackingID: contact.trackingID, tool: contact.tool,
                              tDownNs: contact.tDownNs, tUpNs: contact.tUpNs, endNs: contact.tUpNs >= 0 ? contact.tUpNs : max(recordingEnd, contact.tDownNs))
        }
        // Only a saved report holds the curve matrices; without one they are not computed.
        let curvePoints = options.curves ? options.curvePoints : 0, alignedPoints = options.curves ? options.alignedPoints : 0
        var curves = [Float](repeating: .nan, count: table.count * curvePoints)
        var aligned = [Float](repeating: .nan, count: table.count * alignedPoints)
        let setup = OpenContact.Setup(thresholds: options.thresholds, smoothing: options.smoothing, lanes: lanes,
                                      hasPressure: pressureAxis != nil, curvePoints: curvePoints,
                                      alignedPoints: alignedPoints, alignedStepNs: options.alignedStepNs)

        let rows = try recording.rowCount(.samples)

        // One open contact per slot (index slot + 1; single-touch devices use slot −1).
        var open = [OpenContact](repeating: OpenContact(), count: max(1, device.slotCount) + 1)
        let chunkRows = max(8, options.chunkRows)
        var normalized = [Double](repeating: 0, count: chunkRows)
        // In Double: an axis such as -1..2147483647 spans more than Int32.
        let minimum = Double(pressureAxis?.minimum ?? 0), span = Double(pressureAxis?.maximum ?? 1) - minimum
        var paths = options.curves ? (0..<min(table.count, ContactPath.contacts)).map { ContactPath(id: Int32($0)) } : []
        // Data quality: pressure each slot holds, and until when its contact is down.
        var slotPressure = [Int32](repeating: 0, count: open.count)
        var slotUntil = [Int64](repeating: .min, count: open.count)
        var frameTime = Int64.min
        var multiContactFrames: Int64 = 0, sharedPressureFrames: Int64 = 0, outOfRange: Int64 = 0
        func endFrame() {
            guard pressureAxis != nil, device.contactProtocol == .slots, frameTime != .min else { return }
            var down = 0, first: Int32 = 0, equal = true
            for index in slotUntil.indices where slotUntil[index] > frameTime {
                if down == 0 { first = slotPressure[index] } else if slotPressure[index] != first { equal = false }
                down += 1
            }
            if down >= 2 { multiContactFrames += 1; if equal { sharedPressureFrames += 1 } }
        }
        let bounds = (x: positions.x.map { ($0.minimum, $0.maximum) } ?? (.min, .max),
                      y: positions.y.map { ($0.minimum, $0.maximum) } ?? (.min, .max),
                      p: pressureAxis.map { ($0.minimum, $0.maximum) } ?? (.min, .max))
        try recording.forEachSampleBlock(blockRows: chunkRows) { block in
            let range = block.rows
            let times = block.tNs, ids = block.contact, slots = block.slot
            let xs = block.x, ys = block.y, pressures = block.pressure, flags = block.flags
            try TraceValidation.checkTimes(times, table: "samples", firstRow: range.lowerBound, file: file, recording: recording.name)
            pressures.withUnsafeBufferPointer { raw in
                normalized.withUnsafeMutableBufferPointer { out in
                    normalize(raw, into: out, minimum: minimum, span: span)
                }
            }
            try curves.withUnsafeMutableBufferPointer { curveBuffer in
                try aligned.withUnsafeMutableBufferPointer { alignedBuffer in
                    for index in 0..<range.count {
                        let row = range.lowerBound + index
                        let id = Int(ids[index])
                        guard id >= 0 && id < table.count else { throw fail("samples row \(row) names contact \(id), which the contacts table lacks") }
                        let slotIndex = Int(slots[index]) + 1
                        if slotIndex >= open.count {
                            guard slotIndex < 1 << 15 else { throw fail("samples row \(row) has slot \(slots[index])") }
                            open.append(contentsOf: repeatElement(OpenContact(), count: slotIndex + 1 - open.count))
                            slotPressure += [Int32](repeating: 0, count: open.count - slotPressure.count)
                            slotUntil += [Int64](repeating: .min, count: open.count - slotUntil.count)
                        }
                        guard slotIndex >= 0 else { throw fail("samples row \(row) has slot \(slots[index])") }
                        if times[index] != frameTime { endFrame(); frameTime = times[index] }
                        let x = xs[index], y = ys[index], pressure = pressures[index]
                        if x < bounds.x.0 || x > bounds.x.1 || y < bounds.y.0 || y > bounds.y.1 || pressure < bounds.p.0 || pressure > bounds.p.1 {
                            outOfRange += 1
                        }
                        let isDown = flags[index] & SampleFlags.down.rawValue != 0
                        if isDown {
                            if open[slotIndex].isOpen {
                                throw fail("samples row \(row): contact \(id) goes down in slot \(slots[index]) while contact \(open[slotIndex].id) is still open there")
                            }
                            open[slotIndex].begin(results[id])
                            slotUntil[slotIndex] = results[id].tUpNs >= 0 ? results[id].tUpNs : .max
                        } else if !open[slotIndex].isOpen || open[slotIndex].id != Int32(id) {
                            throw fail("samples row \(row) continues contact \(id) in slot \(slots[index]), which has no open contact with that id")
                        }
                        slotPressure[slotIndex] = pressure
                        if id < paths.count && paths[id].x.count < ContactPath.points {
                            paths[id].x.append(x); paths[id].y.append(y); paths[id].pressure.append(Float(normalized[index]))
                        }
                        open[slotIndex].add(time: times[index], x: xs[index], y: ys[index], pressure: pressures[index],
                                            normalized: normalized[index], flags: flags[index], isDown: isDown, setup: setup,
                                            curve: curveBuffer, aligned: alignedBuffer)
                        if Int64(row) == table[id].lastSample {
                            results[id] = open[slotIndex].finish(setup: setup, resolution: resolution, curve: curveBuffer, aligned: alignedBuffer)
                        }
                    }
                }
            }
            progress?(range.upperBound, rows)
        }
        endFrame()
        for index in open.indices where open[index].isOpen {
            let id = Int(open[index].id)
            warnings.append("contact \(id) has fewer samples than contacts/last_sample says; the file may be truncated")
            curves.withUnsafeMutableBufferPointer { curveBuffer in
                aligned.withUnsafeMutableBufferPointer { alignedBuffer in
                    results[id] = open[index].finish(setup: setup, resolution: resolution, curve: curveBuffer, aligned: alignedBuffer)
                }
            }
        }
        var statistics = PressureStatistics()
        for index in results.indices {
            results[index].label = labels[index]
            statistics.add(results[index], thresholds: options.thresholds)
        }
        statistics.recordings = 1
        for lane in 0..<8 where lanes.applicable[lane] { statistics.laneMotionEvents[lane] = statistics.motionEvents }
        statistics.durationNs = recordingEnd
        statistics.events = Int64(try recording.rowCount(.events))
        statistics.multiContactFrames = multiContactFrames
        statistics.sharedPressureFrames = sharedPressureFrames
        statistics.outOfRangeSamples = outOfRange
        let markers = try recording.markers()
        statistics.droppedMarkers = Int64(markers.filter { $0.kind == .synDropped }.count)
        statistics.resyncMarkers = Int64(markers.filter { $0.kind == .resync }.count)
        statistics.partialRecordings = recording.importStatus == .partial ? 1 : 0
        if options.curves {
            statistics.curveBands = CurveBands(points: curvePoints)
            statistics.alignedBands = CurveBands(points: alignedPoints)
            for contact in results {
                guard let pressClass = contact.pressClass else { continue }
                let row = Int(contact.id)
                statistics.curveBands.add(curves[(row * curvePoints)..<((row + 1) * curvePoints)], as: pressClass)
                statistics.alignedBands.add(aligned[(row * alignedPoints)..<((row + 1) * alignedPoints)], as: pressClass)
            }
        }
        return RecordingAnalysis(file: file, name: recording.name, device: device, pressureAxis: pressureAxis, options: options,
                                 lanes: lanes, contacts: results, curves: curves, alignedCurves: aligned, statistics: statistics,
                                 scriptedPeek: truth.peek, scriptedPop: truth.pop, durationNs: recordingEnd, warnings: warnings,
                                 importStatus: recording.importStatus, paths: paths)
    }

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

/// The running state of one contact that is down.
struct OpenContact {
    struct Setup {
        var thresholds: Thresholds
        var smoothing: Smoothing
        var lanes: ToleranceLanes
        var hasPressure: Bool
        var curvePoints: Int
        var alignedPoints: Int
        var alignedStepNs: Int64
    }

    var isOpen = false
    var stats = ContactStatistics(id: -1, slot: -1, trackingID: -1, tool: 0, tDownNs: 0, tUpNs: -1, endNs: 0)
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

    mutating func begin(_ contact: ContactStatistics) {
        self = OpenContact()
        isOpen = true
        stats = contact
    }

    /// Curve grid point `index` of `points` over the contact's span.
    @inline(__always)
    func gridTime(_ index: Int, points: Int) -> Int64 {
        // 128-bit product: a contact held across a clock jump lasts years,
        // and years × 4096 points overflow 64 bits. The quotient is at most
        // the duration, which fits (TraceValidation bounds the times).
        let product = stats.durationNs.multipliedFullWidth(by: Int64(index))
        return stats.tDownNs + Int64(points).dividingFullWidth(product).quotient
    }

    /// Holds the previous value on every grid point before `time`.
    @inline(__always)
    mutating func hold(until time: Int64, setup: Setup, curve: UnsafeMutableBufferPointer<Float>,
                       aligned: UnsafeMutableBufferPointer<Float>) {
        let row = Int(stats.id)
        let curveBase = row * setup.curvePoints
        while nextPoint < setup.curvePoints && gridTime(nextPoint, points: setup.curvePoints) < time {
            curve[curveBase + nextPoint] = held
            nextPoint += 1
        }
        let alignedBase = row * setup.alignedPoints
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
        hold(until: time, setup: setup, curve: curve, aligned: aligned)
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
            let curveBase = Int(stats.id) * setup.curvePoints
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
