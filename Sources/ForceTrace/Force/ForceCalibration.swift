import Foundation
import HDF5

/// The end of `calibrate --protocol force`: the session's recording
/// analysed with its lag estimated, and the lag stored in its force table
/// (`lag_ns`, `lag_uncertainty_ns`), so `suggest` and Python take it off.
public enum ForceCalibration {
    /// Analyses recording `name` of the closed trace file at `path`; nil without a force table.
    public static func analyzeAndStoreLag(file path: String, recording name: String) throws -> ForceAnalysis? {
        let reader = try TraceReader(path: path)
        guard let analysis = try ForceAnalysis.analyze(try reader.recording(name), reestimateLag: true) else { return nil }
        try reader.close()
        if let lag = analysis.lag {
            let file = try File.open(path, mode: .readWrite)
            let table = try file.root.openGroup(TraceSchema.recordingsGroup).openGroup(name).openGroup(TraceSchema.Table.force.rawValue)
            try table.setAttribute(ForceAttribute.lagNs, .int(lag.lagNs))
            try table.setAttribute(ForceAttribute.lagUncertaintyNs, .int(lag.uncertaintyNs))
            try file.sync()
            try file.close()
        }
        return analysis
    }
}
