import Foundation
import HDF5

/// `forcetrace report --merge PART.h5...`: reads `--save` files back into the
/// typed report, so that text, JSON and `--save` render the same numbers as
/// `report` over all the parts' inputs at once (docs/ANALYSIS.md, "Merging
/// saved reports"). Per-contact rows are not merged: they stay in the parts.
public enum ReportMerge {
    private typealias Root = SavedReportLayout.Root
    private typealias Recording = SavedReportLayout.Recording
    private typealias Name = SavedReportLayout.Name

    // MARK: - What `--save` adds so that a saved recording renders again

    /// Root attributes beyond the thresholds that shape the analysis.
    static func writeOptions(_ options: AnalysisOptions, to root: Group) throws {
        try root.set(Root.curvePoints, Int64(options.curvePoints))
        try root.set(Root.alignedPoints, Int64(options.alignedPoints))
        try root.set(Root.alignedStepNs, options.alignedStepNs)
    }

    /// Per-recording attributes: the device as the renderers show it, the
    /// duration, the warnings and the recording's place in the report.
    static func writeContext(_ analysis: RecordingAnalysis, index: Int, to group: Group) throws {
        let device = analysis.device
        try group.set(Recording.reportIndex, Int64(index))
        try group.set(Recording.deviceID, [Int64(device.bus), Int64(device.vendor), Int64(device.product), Int64(device.version)])
        try group.set(Recording.axes, device.axes.flatMap { axis in
            [Int64(axis.code), Int64(axis.minimum), Int64(axis.maximum), Int64(axis.fuzz), Int64(axis.flat),
             Int64(axis.resolution), Int64(axis.value)]
        })
        try group.set(Recording.pressureAxisCode, analysis.pressureAxis.map { Int64($0.code) } ?? -1)
        try group.set(Recording.durationNs, analysis.durationNs)
        try group.set(Recording.warnings, analysis.warnings)
        if let peek = analysis.scriptedPeek, let pop = analysis.scriptedPop {
            try group.set(Recording.scriptedPeek, peek)
            try group.set(Recording.scriptedPop, pop)
        }
        if let status = analysis.importStatus { try group.set(Recording.importStatus, status.rawValue) }
    }

    /// The group name of each recording in a `--save` file: its name with `/`
    /// made `_`, and `-2`, `-3`, … after a repeated one.
    static func groupName(_ name: String, used: inout Set<String>) -> String {
        var candidate = name.replacingOccurrences(of: "/", with: "_")
        var suffix = 2
        while used.contains(candidate) { candidate = "\(name.replacingOccurrences(of: "/", with: "_"))-\(suffix)"; suffix += 1 }
        used.insert(candidate)
        return candidate
    }

    // MARK: - Reading parts back

    /// A recording as a part holds it: where, and its analysis without contacts.
    public struct SavedRecording: Sendable {
        public var part: String
        public var group: String
        public var analysis: RecordingAnalysis
    }

    /// The merged report of `parts`, and where each of its recordings came from.
    /// `curves`: keep the curve bands (an output that stores curves, `--save`),
    /// as `report` computes them only then.
    public static func read(_ parts: [String], curves: Bool) throws -> (report: PressureReport, recordings: [SavedRecording]) {
        guard !parts.isEmpty else { throw ForceTraceError(file: "report --merge", "no part files given") }
        var options: AnalysisOptions?
        var optionsPart = ""
        var files: [FileAnalysis] = []
        var saved: [SavedRecording] = []
        var owner: [String: String] = [:]
        for part in parts {
            let file = try open(part)
            defer { try? file.close() }
            let root = try file.root
            let partOptions = try readOptions(root, part: part, curves: curves)
            if curves, try root.optional(Root.part, part: part) == ReportFile.statePart {
                throw ForceTraceError(file: part, "holds only what --merge reads (report --save-part): no curves or per-contact rows for --save or --html",
                                      hint: "merge it to text, --json or --save-part, or save the report with --save")
            }
            if let options, options != partOptions {
                throw ForceTraceError(file: part, "was saved with other options than \(optionsPart) (\(describe(partOptions)) against \(describe(options)))",
                                      hint: "merge parts saved with the same report options")
            }
            if options == nil { options = partOptions; optionsPart = part }
            let inputs = try root.required(Root.inputs, part: part)
            var byFile = [String: [(Int64, SavedRecording)]]()
            let recordings = try root.openGroup(Name.recordings)
            for name in try recordings.memberNames() {
                let group = try recordings.openGroup(name)
                let recording = try readRecording(group, name: name, part: part, options: partOptions, curves: curves)
                let index = try group.required(Recording.reportIndex, part: part, where: "\(Name.recordings)/\(name)")
                byFile[recording.analysis.file, default: []].append((index, recording))
            }
            for input in inputs {
                if let other = owner[input] {
                    throw ForceTraceError(file: part, "holds the report of \(input), which \(other) holds too",
                                          hint: "merge each input's part once; a file counted twice would count its contacts twice")
                }
                owner[input] = part
                let mine = (byFile.removeValue(forKey: input) ?? []).sorted { $0.0 < $1.0 }.map(\.1)
                saved += mine
                files.append(FileAnalysis(file: input, recordings: mine.map(\.analysis)))
            }
            if let stray = byFile.keys.sorted().first {
                throw ForceTraceError(file: part, "has a recording of \(stray), which its 'inputs' attribute does not list; the file is damaged")
            }
        }
        try checkTotal(files, saved)
        return (PressureReport(options: options!, files: files), saved)
    }

    /// Adds the recordings' states as `PressureReport` does (each input's,
    /// then the inputs), checked: values read from files may overflow where
    /// `+` would trap or saturate. The error names the part, recording and field.
    static func checkTotal(_ files: [FileAnalysis], _ saved: [SavedRecording]) throws {
        func overflow(_ field: String, _ recording: SavedRecording) -> ForceTraceError {
            ForceTraceError(file: recording.part, "\(Name.recordings)/\(recording.group)/state/\(field) overflows a 64-bit integer when added to the recordings before it",
                            hint: "the part is damaged, or its counts are beyond any report's; save it again from its inputs")
        }
        var total = PressureStatistics()
        var next = saved.startIndex
        for file in files {
            let mine = saved[next..<(next + file.recordings.count)]
            next += file.recordings.count
            var sum = PressureStatistics()
            for recording in mine {
                do { sum = try sum.adding(recording.analysis.statistics) } catch { throw overflow(error.field, recording) }
            }
            do { total = try total.adding(sum) } catch {
                // Name the recording that tips it over.
                var running = total
                for recording in mine {
                    do { running = try running.adding(recording.analysis.statistics) } catch { throw overflow(error.field, recording) }
                }
                throw overflow(error.field, mine.last!)
            }
        }
    }

    static func open(_ part: String) throws -> File {
        let file: File
        try FileKind.requireRegular(part, "a saved report")
        do {
            guard try File.isHDF5(part) else {
                throw ForceTraceError(file: part, "is not an HDF5 file, so not a saved report", hint: "pass files written by 'forcetrace report --save'")
            }
            file = try File.open(part)
        } catch let error as HDF5Error {
            throw ForceTraceError(error)
        }
        let root = try file.root
        guard try root.attribute(Root.format.name).flatMap(String.init(attribute:)) == ReportFile.formatName else {
            try? file.close()
            throw ForceTraceError(file: part, "is not a saved report (its 'format' attribute is not \"\(ReportFile.formatName)\")",
                                  hint: "--merge reads files written by 'forcetrace report --save'; run report on trace files without --merge")
        }
        do { try TraceValidation.refuseForeignObjects(root, file: part) } catch { try? file.close(); throw error }
        let version = try root.attribute(Root.formatVersion.name).flatMap(Int64.init(attribute:)) ?? 0
        guard version <= ReportFile.formatVersion else {
            try? file.close()
            throw ForceTraceError(file: part, "format_version \(version) is newer than this forcetrace")
        }
        return file
    }

    static func readOptions(_ root: Group, part: String, curves: Bool) throws -> AnalysisOptions {
        var options = AnalysisOptions()
        guard let sensitivity = Sensitivity(rawValue: try root.required(Root.sensitivity, part: part)) else {
            throw ForceTraceError(file: part, "has an unknown 'sensitivity' attribute")
        }
        options.thresholds = Thresholds(sensitivity: sensitivity, peek: try root.required(Root.peek, part: part),
                                        pop: try root.required(Root.pop, part: part),
                                        hysteresis: try root.required(Root.hysteresis, part: part))
        let smoothing = try root.required(Root.smoothing, part: part)
        if smoothing == "none" {
            options.smoothing = .none
        } else if smoothing.hasPrefix("ema:"), let alpha = Double(smoothing.dropFirst(4)) {
            options.smoothing = .ema(alpha: alpha)
        } else {
            throw ForceTraceError(file: part, "has an unknown 'smoothing' attribute \"\(smoothing)\"")
        }
        let tolerance = try root.required(Root.tolerance, part: part).split(separator: " ")
        guard tolerance.count == 2, let value = Double(tolerance[0]), tolerance[1] == "units" || tolerance[1] == "mm" else {
            throw ForceTraceError(file: part, "has an unknown 'tolerance' attribute")
        }
        options.tolerance = tolerance[1] == "mm" ? .millimetres(value) : .deviceUnits(value)
        options.curvePoints = Int(try root.required(Root.curvePoints, part: part))
        options.alignedPoints = Int(try root.required(Root.alignedPoints, part: part))
        options.alignedStepNs = try root.required(Root.alignedStepNs, part: part)
        options.curves = curves
        return options
    }

    static func readRecording(_ group: Group, name: String, part: String, options: AnalysisOptions, curves: Bool) throws -> SavedRecording {
        let place = "\(Name.recordings)/\(name)"
        var device = DeviceDescription(name: try group.required(Recording.deviceName, part: part, where: place))
        let ids = try group.required(Recording.deviceID, part: part, where: place)
        guard ids.count == 4 else { throw ForceTraceError(file: part, "\(place): 'device_id' does not have 4 numbers") }
        (device.bus, device.vendor, device.product, device.version) = (UInt16(truncatingIfNeeded: ids[0]), UInt16(truncatingIfNeeded: ids[1]),
                                                                      UInt16(truncatingIfNeeded: ids[2]), UInt16(truncatingIfNeeded: ids[3]))
        let axes = try group.required(Recording.axes, part: part, where: place)
        guard axes.count % Recording.axisColumns == 0 else { throw ForceTraceError(file: part, "\(place): 'axes' is not a list of 7-number rows") }
        device.axes = stride(from: 0, to: axes.count, by: Recording.axisColumns).map { row in
            AxisInfo(code: UInt16(truncatingIfNeeded: axes[row]), minimum: Int32(truncatingIfNeeded: axes[row + 1]),
                     maximum: Int32(truncatingIfNeeded: axes[row + 2]), fuzz: Int32(truncatingIfNeeded: axes[row + 3]),
                     flat: Int32(truncatingIfNeeded: axes[row + 4]), resolution: Int32(truncatingIfNeeded: axes[row + 5]),
                     value: Int32(truncatingIfNeeded: axes[row + 6]))
        }
        let pressureCode = try group.required(Recording.pressureAxisCode, part: part, where: place)
        // The analysis stores its device's contact pressure axis or -1 (none); any other code is a damaged part.
        let pressureAxis: AxisInfo?
        if pressureCode == -1 {
            pressureAxis = nil
        } else if let axis = device.contactPressureAxis, Int64(axis.code) == pressureCode {
            pressureAxis = axis
        } else {
            throw ForceTraceError(file: part, "\(place): 'pressure_axis_code' is \(pressureCode), but the recording's pressure axis is "
                                  + (device.contactPressureAxis.map { "code \($0.code)" } ?? "absent")
                                  + "; a saved part holds that code or -1 (none). Save the part again with report --save.")
        }
        let positions = device.positionAxes
        var statistics = try ReportFile.readStatistics(from: group, file: part, place: place)
        if !curves {
            statistics.curveBands = CurveBands()
            statistics.alignedBands = CurveBands()
        }
        for (field, bands, points) in [("curve_bands", statistics.curveBands, options.curvePoints),
                                       ("aligned_bands", statistics.alignedBands, options.alignedPoints)]
        where bands.points != 0 && bands.points != points {
            throw ForceTraceError(file: part, "\(place)/state/\(field) has \(bands.points) points, but the part was saved with \(points)",
                                  hint: "the file is damaged; save the report again from its inputs")
        }
        let scriptedPeek = try group.optional(Recording.scriptedPeek, part: part, where: place)
        let scriptedPop = try group.optional(Recording.scriptedPop, part: part, where: place)
        let analysis = RecordingAnalysis(
            file: try group.required(Recording.file, part: part, where: place), name: try group.required(Recording.name, part: part, where: place),
            device: device, pressureAxis: pressureAxis, options: options,
            lanes: ToleranceLanes(options.tolerance, xAxis: positions.x, yAxis: positions.y), contacts: [],
            curves: [], alignedCurves: .empty, statistics: statistics, scriptedPeek: scriptedPeek, scriptedPop: scriptedPop,
            durationNs: try group.required(Recording.durationNs, part: part, where: place),
            warnings: try group.required(Recording.warnings, part: part, where: place),
            importStatus: try group.optional(Recording.importStatus, part: part, where: place).flatMap(ImportStatus.init(rawValue:)))
        return SavedRecording(part: part, group: name, analysis: analysis)
    }

    /// Copies a part's recording group as it is, except a version-1 part's
    /// `aligned_curves` matrix, which is written as the ragged array this
    /// version stores (`ReportFile.writeAlignedCurves`), the same as `--save` writes.
    static func copyRecording(_ saved: SavedRecording, from source: Group, to recordings: Group, as name: String, alignedPoints: Int) throws {
        let original = try source.openGroup(saved.group)
        guard original.contains(Name.alignedCurves) else {
            try source.copyKeepingScales(saved.group, to: recordings, as: name)
            return
        }
        let place = "\(Name.recordings)/\(saved.group)/\(Name.alignedCurves)"
        // Declared size first: a damaged extent would make the read allocate without bound.
        if let problem = TraceValidation.extentProblem(try original.storage(of: Name.alignedCurves), fileSize: TraceValidation.fileSize(saved.part)) {
            throw ForceTraceError(file: saved.part, "\(place) \(problem)", hint: "the file is damaged; save the report again from its inputs")
        }
        let rows = try original.shape(of: Name.alignedCurves).first ?? 0
        guard try original.shape(of: SavedReportLayout.Dimension.contact) == [rows] else {
            throw ForceTraceError(file: saved.part, "\(place) has \(rows) rows, not one per contact of the recording",
                                  hint: "the file is damaged; save the report again from its inputs")
        }
        let matrix: [Float]
        do {
            matrix = try original.readMatrix(Name.alignedCurves, rows: rows, columns: alignedPoints)
        } catch let error as HDF5Error {
            throw ForceTraceError(file: saved.part, "\(place) is not a matrix of \(alignedPoints) points per contact (\(error.stack.last ?? error.function))",
                                  hint: "the file is damaged; save the report again from its inputs")
        }
        try source.copyKeepingScales(saved.group, to: recordings, as: name, leaving: [Name.alignedCurves])
        let copied = try recordings.openGroup(name)
        try ReportFile.writeAlignedCurves(AlignedCurves(matrix: matrix, rows: rows, width: alignedPoints), to: copied)
        try copied.attachScale(SavedReportLayout.Dimension.contact, to: [Name.alignedCurveCounts])
    }

    static func describe(_ options: AnalysisOptions) -> String {
        let thresholds = options.thresholds
        return "peek \(thresholds.peek), pop \(thresholds.pop), hysteresis \(thresholds.hysteresis), \(thresholds.sensitivity.rawValue), "
            + "smoothing \(options.smoothing), tolerance \(options.tolerance), k \(options.curvePoints)"
    }

    // MARK: - Writing the merged parts

    /// Writes the merged report as a `--save` file: the parts' recording
    /// groups copied as they are, the merged total, the shared options; it
    /// is itself a part that merges again.
    /// `stateOnly`: a `--save-part` file, with the total's `state/` alone.
    public static func write(_ merged: (report: PressureReport, recordings: [SavedRecording]), parts: [String],
                             to path: String, replace: Bool, stateOnly: Bool = false) throws {
        let target = try AtomicOutput(path: path, replace: replace, inputs: parts)
        let output = try File.create(target.temporaryPath)
        let root = try output.root
        let first = try open(parts[0])
        let firstRoot = try first.root
        for name in try firstRoot.attributeNames() where ![Root.inputs.name, Root.createdUTC.name, Root.part.name].contains(name) {
            if let value = try firstRoot.attribute(name) { try root.setAttribute(name, value) }
        }
        try first.close()
        // This forcetrace writes the layout: a version-1 part's recordings are rewritten below.
        try root.set(Root.formatVersion, ReportFile.formatVersion)
        try root.set(Root.createdUTC, ISO8601DateFormatter().string(from: Date()))
        try root.set(Root.inputs, merged.report.files.map(\.file))
        if stateOnly { try root.set(Root.part, ReportFile.statePart) }
        let recordings = try root.createGroup(Name.recordings)
        var used: Set<String> = []
        var index = 0
        for saved in merged.recordings {
            let source = try open(saved.part)
            let name = groupName(saved.analysis.name, used: &used)
            try copyRecording(saved, from: source.root.openGroup(Name.recordings), to: recordings, as: name,
                              alignedPoints: merged.report.options.alignedPoints)
            try source.close()
            try recordings.openGroup(name).set(Recording.reportIndex, Int64(index))
            index += 1
        }
        if stateOnly {
            try ReportFile.writeState(merged.report.total, to: try root.createGroup(Name.total))
        } else {
            try ReportFile.writeStatistics(merged.report.total, of: merged.report, to: try root.createGroup(Name.total))
        }
        try output.close()
        try target.commit()
    }
}
