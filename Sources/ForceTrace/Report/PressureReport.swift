import Foundation

/// The analyses of one input file.
public struct FileAnalysis: Sendable {
    public var file: String
    public var recordings: [RecordingAnalysis]
    public var statistics: PressureStatistics { recordings.reduce(PressureStatistics()) { $0 + $1.statistics } }

    public init(file: String, recordings: [RecordingAnalysis]) {
        self.file = file
        self.recordings = recordings
    }
}

/// The report's one typed summary: per recording its contacts and aggregate,
/// per file and in total the merged aggregates. Text, JSON, `--save` and
/// HTML are renderers of it (docs/ANALYSIS.md defines every number).
public struct PressureReport: Sendable {
    public var options: AnalysisOptions
    public var files: [FileAnalysis]
    public var total: PressureStatistics
    /// The per-contact statistics every renderer shows: `ContactField.all`,
    /// which a test may extend to see a new one reach every output.
    public var contactFields: [ContactField] = ContactField.all

    public init(options: AnalysisOptions, files: [FileAnalysis]) {
        self.options = options
        self.files = files
        total = files.reduce(PressureStatistics()) { $0 + $1.statistics }
        // Every renderer shows the quantiles of every value list: made here a
        // list per core, instead of one after another where each is first shown.
        let lists = ([total] + recordings.map(\.statistics)).flatMap { $0.quantileLists.map(\.values) }
        DispatchQueue.concurrentPerform(iterations: lists.count) { _ = lists[$0].quantiles }
    }

    public var recordings: [RecordingAnalysis] { files.flatMap(\.recordings) }

    /// The contact fields under this report's options, in JSON key order.
    public var jsonContactFields: [ContactField] {
        contactFields.filter { $0.applies(options) }.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
    }

    /// The contact table's columns, in order: those `analysis` shows, or every one.
    public func contactColumns(_ analysis: RecordingAnalysis? = nil) -> [ContactColumn] {
        contactFields.compactMap(\.column).filter { column in analysis.map(column.shown) ?? true }
    }

    public var toolVersion: String { "forcetrace \(ForceTraceVersion.string)" }
}
