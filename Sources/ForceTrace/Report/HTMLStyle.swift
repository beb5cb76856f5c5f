import Foundation

/// The HTML page's stylesheet, script and palette. Class colours are from
/// the Okabe–Ito set (distinct under the common colour-vision deficiencies)
/// and differ in lightness and dash pattern too, so they survive greyscale.
enum HTMLStyle {
    static let css = """
    :root { --fg: #1a1a1a; --muted: #555; --line: #bbb; --card: #fff; --bg: #f4f4f2;
      --tap: #0072B2; --peek: #E69F00; --pop: #A0361C; }
    * { box-sizing: border-box; }
    body { margin: 0; padding: 0 1rem 2rem; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
    header, section { max-width: 1400px; margin: 0 auto; }
    h1 { font-size: 1.6rem; margin: 1rem 0 .25rem; }
    h2 { font-size: 1.2rem; margin: 2rem 0 .5rem; padding-top: .5rem; border-top: 2px solid var(--fg); overflow-wrap: anywhere; }
    h3 { font-size: 1rem; margin: 0 0 .5rem; }
    .meta, .note, figcaption { color: var(--muted); font-size: .85rem; }
    .warning { background: #fff3cd; border-left: 4px solid #8a6d00; padding: .25rem .5rem; }
    .grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 360px), 1fr)); gap: 1rem; margin: 1rem 0; }
    .card { background: var(--card); border: 1px solid #ddd; border-radius: 6px; padding: .75rem 1rem; margin: 0; min-width: 0; }
    dl { display: grid; grid-template-columns: max-content 1fr; gap: .15rem .75rem; margin: 0; }
    dt { color: var(--muted); } dd { margin: 0; overflow-wrap: anywhere; }
    svg.plot { width: 100%; height: auto; display: block; }
    svg text { font: 11px system-ui, sans-serif; fill: var(--fg); }
    svg .axis-label { font-size: 12px; fill: var(--muted); }
    .axis { stroke: var(--fg); stroke-width: 1; } .gridline { stroke: #e3e3e3; } .tickmark { stroke: var(--fg); }
    .mean { fill: none; stroke-width: 2.5; }
    .band { stroke: none; opacity: .22; }
    .dots { fill: none; stroke: var(--muted); stroke-width: 3; stroke-linecap: round; opacity: .45; }
    .c-tap { stroke: var(--tap); fill: var(--tap); } .mean.c-tap { fill: none; }
    .c-peek-press { stroke: var(--peek); fill: var(--peek); } .mean.c-peek-press { fill: none; stroke-dasharray: 8 4; }
    .c-pop-press { stroke: var(--pop); fill: var(--pop); } .mean.c-pop-press { fill: none; stroke-dasharray: 2 3; stroke-width: 3; }
    .threshold { stroke: #222; stroke-width: 1.2; stroke-dasharray: 5 3; }
    .suggested { stroke-width: 1.5; } .suggested.labels { stroke: #009E73; stroke-dasharray: 1 2; } .suggested.breaks { stroke: #CC79A7; stroke-dasharray: 6 2 1 2; }
    .bar { fill: #56B4E9; stroke: #1f5f80; stroke-width: .5; }
    .sweep { fill: none; stroke: var(--tap); stroke-width: 2.5; }
    .cdf { fill: none; stroke-width: 2.5; } .cdf.peek { stroke: var(--peek); stroke-dasharray: 8 4; } .cdf.pop { stroke: var(--pop); }
    .timeout { stroke: #777; stroke-width: 1; stroke-dasharray: 2 2; }
    .inflation-bar { fill: #56B4E9; stroke: #1f5f80; } .baseline { stroke: #222; stroke-dasharray: 4 3; }
    .bar-label, .mark-label { font-size: 11px; } svg .bar-note { font-size: 10px; fill: #fff; }
    ul.legend { list-style: none; padding: 0; margin: .4rem 0; display: flex; flex-wrap: wrap; gap: .3rem 1rem; font-size: .85rem; }
    .swatch { display: inline-block; width: 22px; height: 0; border-top: 3px solid #888; vertical-align: middle; margin-right: .35rem; }
    .swatch.c-tap { border-color: var(--tap); } .swatch.c-peek-press { border-top-style: dashed; border-color: var(--peek); }
    .swatch.c-pop-press { border-top-style: dotted; border-color: var(--pop); }
    .swatch.threshold { border-top: 2px dashed #222; } .swatch.sweep { border-color: var(--tap); }
    .swatch.cdf.peek { border-top-style: dashed; border-color: var(--peek); } .swatch.cdf.pop { border-color: var(--pop); }
    .swatch.timeout { border-top: 2px dotted #777; } .swatch.suggested.labels { border-top: 2px dotted #009E73; }
    .swatch.suggested.breaks { border-top: 2px dashed #CC79A7; } .swatch.inflation-bar { height: 10px; border: 1px solid #1f5f80; background: #56B4E9; }
    svg.split { display: block; width: 100%; height: auto; margin-top: .4rem; }
    .split rect { stroke: #999; stroke-width: 1; } .split .rise rect { fill: #d9d9d9; } .split .after rect { fill: #8c8c8c; } svg .split-label { font-size: 16px; } svg .after .split-label { fill: #fff; }
    .panels { display: grid; grid-template-columns: repeat(auto-fill, minmax(150px, 1fr)); gap: .5rem; }
    .panel svg { width: 100%; height: auto; } .panel p { font-size: .75rem; margin: .2rem 0; color: var(--muted); }
    .panel .frame { fill: #fafafa; stroke: #ccc; } .panel .trail { fill: none; stroke: #999; stroke-width: .8; }
    .panel circle { fill-opacity: .75; stroke: #222; stroke-width: .3; }
    .ramp { display: flex; align-items: center; gap: .4rem; font-size: .8rem; margin: .4rem 0; }
    .ramp-bar { display: inline-block; width: 140px; height: 10px; border: 1px solid #999;
      background: linear-gradient(90deg, \(rampStops)); }
    table { border-collapse: collapse; font-size: .85rem; }
    th, td { padding: .15rem .45rem; text-align: right; border-bottom: 1px solid #eee; white-space: nowrap; }
    th { background: #f0f0f0; } td:last-child { text-align: left; }
    table.sortable th { cursor: pointer; user-select: none; } table.sortable th[data-dir="asc"]::after { content: " ▲"; } table.sortable th[data-dir="desc"]::after { content: " ▼"; }
    table.confusion { margin: .5rem 0; } table.confusion td { text-align: center; min-width: 4.5rem; }
    \(shadeRules)
    table.confusion caption { text-align: left; font-size: .85rem; color: var(--muted); }
    table.quantiles { margin-top: .5rem; }
    .scroll { overflow-x: auto; }
    .quality ul { list-style: none; padding: 0; margin: 0; } .quality li { padding: .15rem 0; }
    .quality .warn { font-weight: 600; } .quality .mark { display: inline-block; width: 1.2rem; }
    @media (max-width: 600px) { body { padding: 0 .5rem 1rem; font-size: 14px; } dl { grid-template-columns: 1fr; } }
    @page { size: A4; margin: 12mm; }
    @media print {
      body { background: #fff; padding: 0; font-size: 10pt; }
      .grid { display: block; }
      .card { break-inside: avoid; page-break-inside: avoid; border: 1px solid #bbb; margin: 0 0 4mm; }
      h2 { break-before: page; break-after: avoid; } section:first-of-type h2 { break-before: auto; }
      svg.plot { max-height: 95mm; }
      .scroll { overflow: visible; } table.contacts { font-size: 7pt; }
    }
    """

    /// Sorts a table by the clicked column (or Enter/Space on a focused
    /// heading), numerically by `data-v` where given.
    static let script = """
    document.querySelectorAll("table.sortable").forEach(function (table) {
      table.querySelectorAll("thead th").forEach(function (th, column) {
        th.tabIndex = 0;
        th.setAttribute("aria-sort", "none");
        th.addEventListener("keydown", function (event) {
          if (event.key === "Enter" || event.key === " ") { event.preventDefault(); th.click(); }
        });
        th.addEventListener("click", function () {
          var direction = th.dataset.dir === "asc" ? -1 : 1;
          table.querySelectorAll("thead th").forEach(function (other) { delete other.dataset.dir; other.setAttribute("aria-sort", "none"); });
          th.dataset.dir = direction > 0 ? "asc" : "desc";
          th.setAttribute("aria-sort", direction > 0 ? "ascending" : "descending");
          var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
          rows.sort(function (a, b) {
            var x = a.cells[column].dataset.v, y = b.cells[column].dataset.v;
            if (x === undefined || y === undefined) { return direction * a.cells[column].textContent.localeCompare(b.cells[column].textContent); }
            return direction * (parseFloat(x) - parseFloat(y));
          });
          rows.forEach(function (row) { body.appendChild(row); });
        });
      });
    });
    """

    /// The page's Content-Security-Policy: no fetch of any kind, and only the
    /// page's own script and stylesheet, by hash. An escaping slip then can
    /// neither run script nor restyle the page (hide a warning, overlay a
    /// number); the page must hold no event-handler or style attributes,
    /// which a hash does not allow. SVG presentation attributes (`fill`) are
    /// not styles to CSP.
    static let contentSecurityPolicy = "default-src 'none'; script-src 'sha256-\(SHA256.base64(script))'; "
        + "style-src 'sha256-\(SHA256.base64(css))'; base-uri 'none'; form-action 'none'"

    /// The lightness (per cent) of a confusion cell, 36 (the whole row) to 96
    /// (none of it): a class per step, since the policy allows no style attribute.
    static func shadeClass(share: Double) -> String {
        "shade-\(Int((96 - 60 * min(1, max(0, share))).rounded()))"
    }

    static var shadeRules: String {
        (36...96).map { "td.shade-\($0) { background: hsl(210,55%,\($0)%); color: \($0 < 60 ? "#fff" : "#000"); }" }.joined(separator: " ")
    }

    /// A sequential ramp whose lightness falls steadily (viridis-like endpoints),
    /// readable in greyscale and under colour-vision deficiencies.
    static let ramp: [(Double, Double, Double)] = [(253, 231, 37), (94, 201, 98), (33, 145, 140), (59, 82, 139), (68, 1, 84)]

    static func pressureColour(_ value: Double) -> String {
        let position = min(1, max(0, value)) * Double(ramp.count - 1)
        let index = min(ramp.count - 2, Int(position.rounded(.down)))
        let fraction = position - Double(index)
        let (a, b) = (ramp[index], ramp[index + 1])
        return String(format: "#%02x%02x%02x", Int(a.0 + (b.0 - a.0) * fraction), Int(a.1 + (b.1 - a.1) * fraction), Int(a.2 + (b.2 - a.2) * fraction))
    }

    static var rampStops: String { (0...4).map { pressureColour(Double($0) / 4) }.joined(separator: ", ") }
}
