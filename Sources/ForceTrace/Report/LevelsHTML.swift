import Foundation

/// The levels panel of `report --html` (docs/ANALYSIS.md, "Levels"): a
/// confusion table per level count, the capacity and the stage thresholds.
extension PressureReport {
    func levelsPanel(_ result: LevelsResult?) -> String {
        guard let result else { return "" }
        var out = ""
        for set in result.sets {
            let title = "\(set.count) levels: \(set.isReliable ? "reliable" : "not reliable") (raw edges \(set.bands.edges.map(String.init).joined(separator: " ")))"
            out += "<table class=\"confusion\" data-chart=\"levels\" data-count=\"\(set.count)\"><caption>\(esc(title))</caption><thead><tr><th>asked \\ held</th>"
            out += (0...(set.count + 1)).map { "<th>\($0 == 0 ? "below" : $0 == set.count + 1 ? "above" : String($0))</th>" }.joined()
            out += "<th>inside</th></tr></thead><tbody>\n"
            for level in 1...set.count {
                let total = set.trials(level)
                out += "<tr><th>\(level)</th>"
                for count in set.rows[level - 1] {
                    out += "<td class=\"\(HTMLStyle.shadeClass(share: total > 0 ? Double(count) / Double(total) : 0))\">\(count)</td>"
                }
                out += "<td>\(set.inside(level))/\(total)\(set.isReliable(level) ? "" : " ✗")</td></tr>\n"
            }
            out += "</tbody></table>\n"
        }
        out += "<p data-levels-capacity=\"\(result.capacity)\">Levels held reliably (at least 9 in 10 trials inside the band, at that count and every smaller one): \(result.capacity)</p>\n"
        if !result.thresholds.isEmpty {
            out += "<table class=\"levels-thresholds\"><thead><tr><th>stages</th><th>raw</th><th>normalized</th><th>UIKit force</th><th>balanced accuracy</th></tr></thead><tbody>\n"
            for stage in result.thresholds {
                out += "<tr><td>\(stage.lower)|\(stage.lower + 1)</td><td>\(stage.raw)</td>"
                out += String(format: "<td>%.3f</td><td>%.3f</td><td>%.3f</td></tr>\n", result.normalized(stage.raw), result.force(stage.raw),
                              stage.separation.balancedAccuracy)
            }
            out += "</tbody></table>\n"
        }
        return figure("levels", title: "Pressure levels (forcetrace levels, seed \(result.seed))", svg: out,
                      caption: "Rows: the level asked for; columns: the band its held pressure (the highest it kept for 300 ms) fell in. "
                        + "Shading is the share of the row. A pressure above a stage threshold is the upper stage; UIKit force = normalized × \(UIKitForce.maximumPossibleForce).",
                      legend: "")
    }
}
