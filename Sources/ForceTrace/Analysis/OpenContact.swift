import Foundation

/// The running state of one contact that is down.
struct OpenContact {
    struct Setup {
        var thresholds: Thresholds
        var smoothing: Smoothing
        /// `ToleranceLanes.x` and `.y` for whole-unit distances: nothing to retain per call.
        var tolerances: WholeUnitTolerances
        var hasPressure: Bool
        /// The pressure axis's grams, when it has a resolution.
        var grams: GramScale?
        var curvePoints: Int
        var alignedPoints: Int
        var alignedStepNs: Int64
        /// Curve rows by contact id in the matrices, else by slot in the lane's `CurveTargets`.
        var keepsMatrices: Bool
        /// Whether each lane sums the bands of the contacts it finishes.
        var lanesAddBands: Bool

        /// The grid points a contact has on the aligned grid: those before its end.
        func alignedCapacity(_ contact: ContactStatistics) -> Int {
            AlignedCurves.capacity(tDown: contact.tDownNs, end: contact.endNs, step: alignedStepNs, width: alignedPoints)
        }

        /// Only a saved report holds the curve matrices; without one the lanes
        /// hold each open contact's curve in a row per slot, and add it to their bands.
        init(_ options: AnalysisOptions, lanes: ToleranceLanes, hasPressure: Bool, grams: GramScale?, bandsFromMatrices: Bool) {
            thresholds = options.thresholds
            smoothing = options.smoothing
            tolerances = WholeUnitTolerances(x: lanes.x, y: lanes.y)
            self.hasPressure = hasPressure
            self.grams = hasPressure ? grams : nil
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
    var peek = ThresholdCrossings(), pop = ThresholdCrossings()
    /// Stationary events since the running peak, not yet known to be before the final peak.
    var pendingStationary = SIMD8<Int64>(repeating: 0)
    var held: Float = .nan
    var nextPoint = 0
    var nextAligned = 0
    /// The aligned grid points before the contact's end: no more are written, whatever its samples' times.
    var alignedLimit = 0
    /// `gridTime(nextPoint)`, stepped from point to point (`CurveGridStep`).
    var nextPointTime: Int64 = 0
    var gridStep = CurveGridStep(duration: 0, points: 0)
    /// Where this contact's curve rows start in the buffers `hold` writes.
    var curveBase = 0, alignedBase = 0

    mutating func begin(_ contact: ContactStatistics, curveBase: Int, alignedBase: Int, setup: Setup) {
        self = OpenContact()
        isOpen = true
        stats = contact
        self.curveBase = curveBase
        self.alignedBase = alignedBase
        alignedLimit = setup.alignedCapacity(contact)
        gridStep = CurveGridStep(duration: contact.durationNs, points: setup.curvePoints)
        nextPointTime = contact.tDownNs
    }

    /// Moves to the next curve grid point and its time.
    @inline(__always)
    mutating func advancePoint(points: Int) {
        nextPoint += 1
        if !gridStep.step(&nextPointTime) { nextPointTime = nextPoint < points ? gridTime(nextPoint, points: points) : .max }
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
        while nextPoint < setup.curvePoints && nextPointTime < time {
            curve[curveBase + nextPoint] = held
            advancePoint(points: setup.curvePoints)
        }
        while nextAligned < alignedLimit && stats.tDownNs + Int64(nextAligned) * setup.alignedStepNs < time {
            aligned[alignedBase + nextAligned] = held
            nextAligned += 1
        }
    }

    /// The touch-down row: where the contact's displacement, peak and signal start.
    mutating func addDown(time: Int64, x: Int32, y: Int32, pressure: Int32, normalized: Double, setup: Setup,
                          curve: UnsafeMutableBufferPointer<Float>, aligned: UnsafeMutableBufferPointer<Float>) {
        stats.samples += 1
        downX = x; downY = y
        previousX = x; previousY = y
        guard setup.hasPressure else { return }
        if setup.curvePoints > 0 || setup.alignedPoints > 0 { hold(until: time, setup: setup, curve: curve, aligned: aligned) }
        held = Float(normalized)
        stats.peakRaw = pressure
        stats.peakNorm = normalized
        stats.timeToPeakNs = time - stats.tDownNs
        stats.stationaryRise &+= pendingStationary
        pendingStationary = SIMD8(repeating: 0)
        signal = normalized
        stats.signalPeak = signal
        let thresholds = setup.thresholds
        peek.follow(signal, at: time, tDown: stats.tDownNs, level: thresholds.peek, hysteresis: thresholds.hysteresis)
        pop.follow(signal, at: time, tDown: stats.tDownNs, level: thresholds.pop, hysteresis: thresholds.hysteresis)
    }

    /// Rows `run` of `rows`, each continuing this contact after its
    /// touch-down, in order. A pass per measure over the run's columns: each
    /// is what the rows one at a time would give.
    @inline(__always)
    mutating func addRun(_ rows: SampleRows, _ run: Range<Int>, normalized: UnsafeBufferPointer<Double>, setup: Setup,
                         curve: UnsafeMutableBufferPointer<Float>, aligned: UnsafeMutableBufferPointer<Float>) {
        guard let last = run.last else { return }
        stats.samples += Int64(run.count)
        stats.motionEvents += Int64(run.count)
        // The last row that raises the peak: the stationary events up to it are the rise.
        var lastPeak = -1
        if setup.hasPressure {
            var peak = stats.peakRaw
            for index in run where rows.pressure[index] > peak { peak = rows.pressure[index]; lastPeak = index }
        }
        let tolerances = setup.tolerances, downX = Int64(self.downX), downY = Int64(self.downY)
        let split = lastPeak >= 0 ? lastPeak + 1 : run.lowerBound
        var maxDx = stats.maxDx, maxDy = stats.maxDy
        var previousX = self.previousX, previousY = self.previousY
        var rise = SIMD8<UInt32>.zero, pending = SIMD8<UInt32>.zero
        for index in run {
            let x = rows.x[index], y = rows.y[index]
            maxDx = max(maxDx, abs(Int64(x) - downX))
            maxDy = max(maxDy, abs(Int64(y) - downY))
            if rows.flags[index] & SampleFlags.pressureChanged.rawValue != 0 {
                let ones = tolerances.withinMask(stepX: WholeUnitTolerances.magnitude(x, previousX),
                                                 stepY: WholeUnitTolerances.magnitude(y, previousY))
                if index < split { rise &+= ones } else { pending &+= ones }
            }
            previousX = x; previousY = y
        }
        stats.maxDx = maxDx; stats.maxDy = maxDy
        self.previousX = previousX; self.previousY = previousY
        if lastPeak >= 0 {
            stats.stationaryRise &+= pendingStationary &+ SIMD8<Int64>(truncatingIfNeeded: rise)
            pendingStationary = SIMD8(repeating: 0)
        }
        pendingStationary &+= SIMD8<Int64>(truncatingIfNeeded: pending)
        guard setup.hasPressure else { return }
        if lastPeak >= 0 {
            stats.peakRaw = rows.pressure[lastPeak]
            stats.peakNorm = normalized[lastPeak]
            stats.timeToPeakNs = rows.tNs[lastPeak] - stats.tDownNs
        }
        // The signal's peak and crossings in locals: one comparison chain per row.
        var best = stats.signalPeak ?? -.infinity, raised = false
        var peek = self.peek, pop = self.pop
        let thresholds = setup.thresholds, tDown = stats.tDownNs
        switch setup.smoothing {
        case .none:
            for index in run {
                Self.follow(normalized[index], at: rows.tNs[index], tDown: tDown, thresholds, best: &best, raised: &raised,
                            peek: &peek, pop: &pop)
            }
            signal = normalized[last]
        case .ema(let alpha):
            var signal = self.signal
            for index in run {
                signal = alpha * normalized[index] + (1 - alpha) * signal
                Self.follow(signal, at: rows.tNs[index], tDown: tDown, thresholds, best: &best, raised: &raised, peek: &peek, pop: &pop)
            }
            self.signal = signal
        }
        self.peek = peek; self.pop = pop
        if raised { stats.signalPeak = best }
        if setup.curvePoints > 0 || setup.alignedPoints > 0 {
            for index in run {
                hold(until: rows.tNs[index], setup: setup, curve: curve, aligned: aligned)
                held = Float(normalized[index])
            }
        }
        held = Float(normalized[last])
    }

    /// The signal at a row after the touch-down: a new peak, and the crossings.
    @inline(__always)
    private static func follow(_ signal: Double, at time: Int64, tDown: Int64, _ thresholds: Thresholds, best: inout Double,
                               raised: inout Bool, peek: inout ThresholdCrossings, pop: inout ThresholdCrossings) {
        if signal > best { best = signal; raised = true }
        peek.follow(signal, at: time, tDown: tDown, level: thresholds.peek, hysteresis: thresholds.hysteresis)
        pop.follow(signal, at: time, tDown: tDown, level: thresholds.pop, hysteresis: thresholds.hysteresis)
    }

    mutating func finish(setup: Setup, resolution: (x: Double, y: Double), curve: UnsafeMutableBufferPointer<Float>,
                         aligned: UnsafeMutableBufferPointer<Float>) -> ContactStatistics {
        isOpen = false
        stats.stationary = stats.stationaryRise &+ pendingStationary
        (stats.peekCrossings, stats.tPeekNs) = (peek.count, peek.firstNs)
        (stats.popCrossings, stats.tPopNs) = (pop.count, pop.firstNs)
        if setup.hasPressure {
            hold(until: stats.endNs, setup: setup, curve: curve, aligned: aligned)
            // The span's last grid points lie before its end; a zero-length span holds the down value.
            while nextPoint < setup.curvePoints { curve[curveBase + nextPoint] = held; nextPoint += 1 }
            if let grams = setup.grams, stats.peakNorm != nil { stats.peakGrams = grams.grams(stats.peakRaw) }
            if let peak = stats.signalPeak {
                stats.pressClass = PressClass.of(peak: peak, peek: setup.thresholds.peek, pop: setup.thresholds.pop)
            }
        }
        if resolution.x > 0 && resolution.y > 0 {
            stats.displacementMM = max(Double(stats.maxDx) / resolution.x, Double(stats.maxDy) / resolution.y)
        }
        stats.withinTolerance = setup.tolerances.within(dx: Int(stats.maxDx), dy: Int(stats.maxDy))
        return stats
    }
}

/// One threshold's crossings by a contact's signal: one is counted where the
/// signal reaches the threshold while armed; it is armed again once the
/// signal falls a hysteresis below it.
struct ThresholdCrossings {
    var armed = true
    var count = 0
    /// From touch-down to the first crossing.
    var firstNs: Int64?

    @inline(__always)
    mutating func follow(_ signal: Double, at time: Int64, tDown: Int64, level: Double, hysteresis: Double) {
        if armed {
            if signal >= level {
                count += 1
                if firstNs == nil { firstNs = time - tDown }
                armed = false
            }
        } else if signal < level - hysteresis {
            armed = true
        }
    }
}

/// The tolerance lanes for a distance between two samples' positions (a
/// step, or a contact's displacement from touch-down), in integers: such a
/// distance is at most 2^32 − 1 units on an axis, and for an integer d,
/// `Double(d) <= t` holds exactly when `d <= floor(t)` (t ≥ 0), so these
/// give the same answer as the lanes in Double, with one comparison per axis
/// for all eight lanes instead of a conversion and two.
struct WholeUnitTolerances {
    var x: SIMD8<UInt32>, y: SIMD8<UInt32>
    /// 1 in lanes that apply (both tolerances ≥ 0), else 0: nothing is within them.
    var applies: SIMD8<UInt32>

    init(x: SIMD8<Double>, y: SIMD8<Double>) {
        func floored(_ tolerance: Double) -> UInt32 {
            tolerance >= Double(UInt32.max) ? .max : UInt32(tolerance.rounded(.down))
        }
        self.x = .zero; self.y = .zero; applies = .zero
        for lane in 0..<8 where x[lane] >= 0 && y[lane] >= 0 {
            self.x[lane] = floored(x[lane])
            self.y[lane] = floored(y[lane])
            applies[lane] = 1
        }
    }

    /// 1 in each lane whose tolerances the distance (in units on each axis, of either sign) is within.
    @inline(__always)
    func within(dx: Int, dy: Int) -> SIMD8<Int64> {
        SIMD8<Int64>(truncatingIfNeeded: withinMask(dx: dx, dy: dy))
    }

    /// `within` in 32 bits, for sums over fewer than 2^32 rows.
    @inline(__always)
    func withinMask(dx: Int, dy: Int) -> SIMD8<UInt32> {
        withinMask(stepX: UInt32(truncatingIfNeeded: dx.magnitude), stepY: UInt32(truncatingIfNeeded: dy.magnitude))
    }

    /// `withinMask` of a distance's magnitudes (`magnitude`).
    @inline(__always)
    func withinMask(stepX: UInt32, stepY: UInt32) -> SIMD8<UInt32> {
        let sx = SIMD8<UInt32>(repeating: stepX), sy = SIMD8<UInt32>(repeating: stepY)
        return applies.replacing(with: 0, where: (sx .> x) .| (sy .> y))
    }

    /// |a − b|: at most 2^32 − 1, so the larger less the smaller, wrapped
    /// in 32 bits, is exact, with no widening or overflow check per row.
    @inline(__always)
    static func magnitude(_ a: Int32, _ b: Int32) -> UInt32 {
        a >= b ? UInt32(bitPattern: a &- b) : UInt32(bitPattern: b &- a)
    }
}

/// The curve grid's times `t_down + ⌊duration·i / points⌋` one after
/// another without a division per point: with duration = q·points + r,
/// the quotient grows by q and by one more each time the remainders r·i
/// pass `points`. Only where duration·points fits 64 bits and the span is
/// not negative; elsewhere `step` declines and `OpenContact.gridTime` divides.
struct CurveGridStep {
    private let quotient: Int64, remainder: Int64, points: Int64
    private var carried: Int64 = 0
    let exact: Bool

    init(duration: Int64, points: Int) {
        self.points = Int64(points)
        exact = points > 0 && duration >= 0 && !duration.multipliedReportingOverflow(by: Int64(points)).overflow
        quotient = exact ? duration / Int64(points) : 0
        remainder = exact ? duration % Int64(points) : 0
    }

    /// Advances `time` from one grid point to the next; false when not `exact`.
    @inline(__always)
    mutating func step(_ time: inout Int64) -> Bool {
        guard exact else { return false }
        time += quotient
        carried += remainder
        if carried >= points { time += 1; carried -= points }
        return true
    }
}
