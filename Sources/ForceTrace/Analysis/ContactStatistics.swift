/// Tolerances the stationary test runs with, one per SIMD lane: lane 0 is
/// the configured `--tolerance`, lanes 1... the inflation sweep in mm.
/// An inapplicable lane (mm without a known resolution) has tolerance −1, so
/// nothing is ever within it.
public struct ToleranceLanes: Sendable {
    public static let configuredLane = 0
    public static let sweepLanes = 1...AnalysisOptions.sweepTolerancesMM.count

    /// Per-axis tolerance in device units.
    public var x = SIMD8<Double>(repeating: -1)
    public var y = SIMD8<Double>(repeating: -1)
    public var applicable = [Bool](repeating: false, count: 8)
    /// What lane 0 ended up meaning, such as "0.5 mm (10 x units, 10 y units)".
    public var configuredDescription = ""
    /// Set when the configured tolerance could not be applied as asked.
    public var warning: String?

    public init(_ tolerance: Tolerance, xAxis: AxisInfo?, yAxis: AxisInfo?) {
        let resolutionX = Double(xAxis?.resolution ?? 0), resolutionY = Double(yAxis?.resolution ?? 0)
        let knowsResolution = resolutionX > 0 && resolutionY > 0
        func set(_ lane: Int, mm: Double) -> Bool {
            if mm == 0 {
                x[lane] = 0; y[lane] = 0
            } else if knowsResolution {
                x[lane] = mm * resolutionX; y[lane] = mm * resolutionY
            } else {
                return false
            }
            applicable[lane] = true
            return true
        }
        switch tolerance {
        case .deviceUnits(let units):
            x[0] = units; y[0] = units; applicable[0] = true
            configuredDescription = tolerance.description
        case .millimetres(let mm):
            if set(0, mm: mm) {
                configuredDescription = mm == 0 ? "0 mm" : "\(formatNumber(mm)) mm (\(formatNumber(x[0])) x units, \(formatNumber(y[0])) y units)"
            } else {
                x[0] = 0; y[0] = 0; applicable[0] = true
                configuredDescription = "0 units"
                warning = "--tolerance \(formatNumber(mm)) mm needs the x and y axis resolution, which this device does not report; used 0"
            }
        }
        for (offset, mm) in AnalysisOptions.sweepTolerancesMM.enumerated() { _ = set(1 + offset, mm: mm) }
    }
}

/// Everything measured about one contact. Times are nanoseconds; those named
/// "from touch-down" are relative to `tDownNs`, the rest to the recording's t0.
public struct ContactStatistics: Equatable, Sendable {
    /// The contacts table's row it measures: id, slot, tracking id, tool and times.
    public var contact: Contact
    /// `tUpNs`, or the recording's last event for a contact still down.
    public var endNs: Int64
    public var samples: Int64 = 0

    /// Largest raw pressure, −1 without a pressure axis.
    public var peakRaw: Int32 = -1
    public var peakNorm: Double?
    /// `peakRaw` in grams, where the pressure axis has a resolution (`GramScale`).
    public var peakGrams: Double?
    /// From touch-down to the first sample at the peak.
    public var timeToPeakNs: Int64?
    /// Peak of the signal the thresholds look at (equals `peakNorm` unless smoothing).
    public var signalPeak: Double?
    /// From touch-down to the first crossing.
    public var tPeekNs: Int64?
    public var tPopNs: Int64?
    public var peekCrossings = 0
    public var popCrossings = 0

    /// Largest |x − x_down| and |y − y_down|, device units.
    public var maxDx: Int64 = 0
    public var maxDy: Int64 = 0
    public var displacementMM: Double?

    public var motionEvents: Int64 = 0
    /// Stationary pressure events per tolerance lane (see `ToleranceLanes`).
    public var stationary = SIMD8<Int64>(repeating: 0)
    /// Those up to and including the sample at the peak.
    public var stationaryRise = SIMD8<Int64>(repeating: 0)
    /// 1 in lanes whose tolerance the whole contact stayed within.
    public var withinTolerance = SIMD8<Int64>(repeating: 0)

    public var pressClass: PressClass?
    /// Ground truth, where the file has a label for this contact.
    public var label: PressClass?

    public init(_ contact: Contact, endNs: Int64) {
        self.contact = contact
        self.endNs = endNs
    }

    /// A contact before its samples, ending at its touch-up, or, still down,
    /// at the recording's last event (never before its touch-down).
    public init(_ contact: Contact, recordingEndNs: Int64) {
        self.init(contact, endNs: contact.tUpNs >= 0 ? contact.tUpNs : max(recordingEndNs, contact.tDownNs))
    }

    public var id: Int32 { contact.id }
    public var slot: Int16 { contact.slot }
    public var trackingID: Int32 { contact.trackingID }
    public var tool: UInt16 { contact.tool }
    public var tDownNs: Int64 { contact.tDownNs }
    /// −1 when the contact is still down at the end of the recording.
    public var tUpNs: Int64 { contact.tUpNs }
    public var durationNs: Int64 { endNs - tDownNs }
    public var stillDown: Bool { tUpNs < 0 }
    public var displacementUnits: Int64 { max(maxDx, maxDy) }
    public var peakForce: Double? { peakNorm.map(UIKitForce.force(normalized:)) }
    public var stationaryAfterPeak: SIMD8<Int64> { stationary &- stationaryRise }
    public var peekRecrossings: Int { max(0, peekCrossings - 1) }
    public var popRecrossings: Int { max(0, popCrossings - 1) }
    public var peekToPopNs: Int64? {
        guard let peek = tPeekNs, let pop = tPopNs else { return nil }
        return pop - peek
    }
    public var isStationaryDeepPress: Bool { pressClass == .popPress && withinTolerance[0] == 1 }

    /// motion / (motion − stationary) in `lane`.
    public func inflation(lane: Int = 0) -> Inflation {
        Inflation(motion: motionEvents, stationary: stationary[lane])
    }

    /// Stationary pressure events per second of the contact.
    public var stationaryRateHz: Double? {
        durationNs > 0 ? Double(stationary[0]) / (Double(durationNs) / 1e9) : nil
    }
}
