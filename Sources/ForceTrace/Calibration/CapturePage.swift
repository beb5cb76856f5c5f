/// `forcetrace capture-page`: one self-contained HTML page that runs a
/// guided protocol in any browser and saves the events as a browser capture
/// (docs/FORMAT.md, "Browser captures"), which `import` reads. It loads
/// nothing: its policy allows only its own script and stylesheet, by hash.
public enum CapturePage {
    /// The protocols the page offers: `calibrate`'s, with the same classes,
    /// order and prompts (the touchpad protocol needs a touchpad, not a page).
    static let protocols: [CalibrationProtocol] = [.app, .pen]

    /// The protocols as the script reads them: name, classes, prompts.
    static var protocolTable: String {
        var text = "{"
        for (index, calibrationProtocol) in protocols.enumerated() {
            if index > 0 { text += ", " }
            let classes = calibrationProtocol.classes.map { "{\"name\": \"\($0.rawValue)\", \"prompt\": \"\($0.instruction)\"}" }
            text += "\"\(calibrationProtocol.rawValue)\": [\(classes.joined(separator: ", "))]"
        }
        return text + "}"
    }

    static let css = """
    :root { --fg: #1a1a1a; --muted: #555; --bg: #f4f4f2; --bar: #0072B2; --peak: #A0361C; }
    * { box-sizing: border-box; }
    html, body { margin: 0; height: 100%; }
    body { display: flex; flex-direction: column; gap: .5rem; padding: .5rem; font: 16px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
      color: var(--fg); background: var(--bg); -webkit-user-select: none; user-select: none; -webkit-touch-callout: none; }
    h1 { font-size: 1.2rem; margin: 0; }
    .row { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; }
    button, select, input { font: inherit; padding: .35rem .7rem; }
    #prompt { font-size: 1.15rem; font-weight: 600; min-height: 2.8em; }
    #status { color: var(--muted); min-height: 1.4em; }
    #meter { position: relative; height: 1.6rem; background: #fff; border: 1px solid #999; border-radius: 4px; overflow: hidden; }
    #bar { position: absolute; left: 0; top: 0; bottom: 0; width: 0; background: var(--bar); }
    #peak { position: absolute; top: 0; bottom: 0; width: 3px; left: 0; background: var(--peak); }
    #force { position: absolute; right: .5rem; top: 0; line-height: 1.6rem; font-variant-numeric: tabular-nums; }
    #pad { flex: 1; min-height: 40vh; background: #fff; border: 2px dashed #777; border-radius: 8px; touch-action: none;
      display: flex; align-items: center; justify-content: center; color: var(--muted); }
    #pad.down { background: #e8f1f8; }
    #out { width: 100%; height: 6rem; font: 12px monospace; }
    .hidden { display: none; }
    """

    static let scriptBody = #"""
    (function () {
      "use strict";
      var $ = function (id) { return document.getElementById(id); };
      var pad = $("pad"), bar = $("bar"), peakMark = $("peak"), forceText = $("force");
      var hasTouch = "ontouchstart" in window;
      var cap = null, schedule = [], index = 0, trial = null, hover = null, down = {};

      function ts(e) {
        // Old WebKit gave epoch milliseconds; now it is time since timeOrigin.
        var t = e.timeStamp;
        return t > 1e12 ? t - cap.timeOrigin : t;
      }
      function num(value) { return typeof value === "number" && isFinite(value) ? value : undefined; }
      function show(force, peak) {
        var f = Math.max(0, Math.min(1, force || 0));
        bar.style.width = (f * 100).toFixed(1) + "%";
        peakMark.style.left = (Math.max(0, Math.min(1, peak || 0)) * 100).toFixed(1) + "%";
        forceText.textContent = f.toFixed(3);
      }
      function status(text) { $("status").textContent = text; }
      function prompt() {
        var text;
        if (!cap) { text = "Choose a protocol and press Start."; }
        else if (index >= schedule.length) { text = "Done: " + cap.trials.length + " trials. Save the capture."; }
        else { text = "Trial " + (index + 1) + " of " + schedule.length + ": " + schedule[index].prompt; }
        $("prompt").textContent = text;
        $("count").textContent = cap ? String(cap.trials.length) : "0";
      }

      function start(name, rounds) {
        var classes = PROTOCOLS[name];
        if (!classes) { return; }
        cap = {
          format: "forcetrace-browser-capture", version: 1, page: "forcetrace " + VERSION,
          userAgent: navigator.userAgent,
          screen: { width: screen.width, height: screen.height, devicePixelRatio: window.devicePixelRatio || 1 },
          viewport: { width: window.innerWidth, height: window.innerHeight },
          timeOrigin: performance.timeOrigin || (Date.now() - performance.now()),
          maxTouchPoints: navigator.maxTouchPoints || 0,
          protocol: name, trials: [], pointer: [], touch: [], mouseForce: []
        };
        schedule = [];
        for (var r = 0; r < rounds; r++) { schedule = schedule.concat(classes); }
        index = 0; trial = null; hover = null; down = {};
        status(""); show(0, 0); prompt();
      }

      // A trial: the first contact down after the prompt, kept when it lifts.
      function contactDown(input, id, t, force) {
        down[input + id] = true;
        if (!cap || index >= schedule.length || schedule[index].name === "hover") { return; }
        if (trial) { trial.contacts += 1; return; }
        trial = { input: input, id: id, start: t, peak: force, contacts: 1 };
        show(force, force);
      }
      function contactMove(input, id, force) {
        if (trial && trial.input === input && trial.id === id) {
          trial.peak = Math.max(trial.peak, force);
          show(force, trial.peak);
        }
      }
      function contactUp(input, id, t) {
        delete down[input + id];
        if (!trial || trial.input !== input || trial.id !== id) { return; }
        var kept = trial;
        trial = null;
        show(0, kept.peak);
        if (kept.contacts > 1) { status(kept.contacts + " contacts at once; use one. Again."); return; }
        if (t - kept.start < MINIMUM_MS) { status("too short (" + Math.round(t - kept.start) + " ms); again."); return; }
        cap.trials.push({ "class": schedule[index].name, input: kept.input, id: kept.id, start: kept.start, end: t });
        status("kept: peak " + kept.peak.toFixed(3));
        index += 1;
        prompt();
      }
      function hovering(e) {
        if (!cap || index >= schedule.length || schedule[index].name !== "hover") { return; }
        var t = ts(e);
        if (!hover) { hover = { start: t, touched: false }; status("hovering"); }
        if (e.type === "pointerdown") { hover.touched = true; }
        if (e.type === "pointerleave") {
          var span = hover;
          hover = null;
          if (span.touched) { status("the tip touched the surface; hover without touching. Again."); return; }
          if (t - span.start < MINIMUM_MS) { status("too short; again."); return; }
          cap.trials.push({ "class": "hover", input: "pen", start: span.start, end: t });
          status("kept: hover");
          index += 1;
          prompt();
        }
      }

      function pointerItem(e, type, coalesced) {
        var item = { t: ts(e), type: type, pointerType: e.pointerType, id: e.pointerId, x: e.clientX, y: e.clientY,
          pressure: num(e.pressure), tiltX: num(e.tiltX), tiltY: num(e.tiltY), twist: num(e.twist),
          altitudeAngle: num(e.altitudeAngle), azimuthAngle: num(e.azimuthAngle),
          width: num(e.width), height: num(e.height), buttons: e.buttons };
        if (coalesced) { item.coalesced = true; }
        return item;
      }
      function onPointer(type) {
        return function (e) {
          if (!cap || e.pointerType === "mouse") { return; }
          if (type === "move" && e.getCoalescedEvents) {
            var list = e.getCoalescedEvents();
            for (var i = 0; i < list.length; i++) { cap.pointer.push(pointerItem(list[i], "move", true)); }
            if (list.length === 0) { cap.pointer.push(pointerItem(e, "move", false)); }
          } else {
            cap.pointer.push(pointerItem(e, type, false));
          }
          var t = ts(e), force = num(e.pressure) || 0;
          if (e.pointerType === "pen") {
            if (type === "down") { hovering(e); contactDown("pen", e.pointerId, t, force); }
            else if (type === "move") { if (e.buttons & 1) { contactMove("pen", e.pointerId, force); } else { hovering(e); } }
            else if (type === "up") { contactUp("pen", e.pointerId, t); }
            else if (type === "leave") { hovering(e); }
          } else if (!hasTouch) {
            if (type === "down") { contactDown("touch", e.pointerId, t, force); }
            else if (type === "move") { contactMove("touch", e.pointerId, force); }
            else if (type === "up") { contactUp("touch", e.pointerId, t); }
          }
          if (type === "down") { pad.classList.add("down"); }
          if (type === "up") { pad.classList.remove("down"); }
        };
      }
      [["pointerdown", "down"], ["pointermove", "move"], ["pointerup", "up"], ["pointercancel", "cancel"], ["pointerleave", "leave"]]
        .forEach(function (pair) { pad.addEventListener(pair[0], onPointer(pair[1])); });

      function onTouch(type) {
        return function (e) {
          if (!cap) { return; }
          e.preventDefault();
          var t = ts(e);
          for (var i = 0; i < e.changedTouches.length; i++) {
            var touch = e.changedTouches[i];
            cap.touch.push({ t: t, type: type, id: touch.identifier, x: touch.clientX, y: touch.clientY,
              force: num(touch.force), radiusX: num(touch.radiusX), radiusY: num(touch.radiusY),
              rotationAngle: num(touch.rotationAngle), touchType: touch.touchType,
              altitudeAngle: num(touch.altitudeAngle), azimuthAngle: num(touch.azimuthAngle) });
            if (touch.touchType === "stylus") { continue; }
            var force = num(touch.force) || 0;
            if (type === "start") { contactDown("touch", touch.identifier, t, force); }
            else if (type === "move") { contactMove("touch", touch.identifier, force); }
            else { contactUp("touch", touch.identifier, t); }
          }
        };
      }
      [["touchstart", "start"], ["touchmove", "move"], ["touchend", "end"], ["touchcancel", "cancel"]]
        .forEach(function (pair) { pad.addEventListener(pair[0], onTouch(pair[1]), { passive: false }); });

      // Safari on a Force Touch trackpad: webkitForce 0..3 on mouse and force events.
      var held = false;
      function onForce(type) {
        return function (e) {
          if (!cap || typeof e.webkitForce !== "number") {
            if (cap && type === "mousedown") { status("this mouse reports no force: use a touchscreen, a pen, or Safari on a Force Touch trackpad"); }
            return;
          }
          if (type === "mousedown") { held = true; }
          if (type === "mousemove" && !held) { return; }
          var t = ts(e), force = e.webkitForce / 3;
          cap.mouseForce.push({ t: t, type: type, x: e.clientX, y: e.clientY, force: e.webkitForce });
          if (type === "mousedown") { contactDown("mouse", 0, t, force); }
          else if (type === "mouseup") { held = false; contactUp("mouse", 0, t); }
          else { contactMove("mouse", 0, force); }
        };
      }
      [["mousedown", "mousedown"], ["mousemove", "mousemove"], ["mouseup", "mouseup"],
       ["webkitmouseforcewillbegin", "willbegin"], ["webkitmouseforcedown", "down"],
       ["webkitmouseforceup", "up"], ["webkitmouseforcechanged", "changed"]]
        .forEach(function (pair) { pad.addEventListener(pair[0], onForce(pair[1])); });
      // Keep the system's force-click actions (the dictionary) off the pad.
      pad.addEventListener("webkitmouseforcewillbegin", function (e) { e.preventDefault(); });
      pad.addEventListener("contextmenu", function (e) { e.preventDefault(); });

      // The JSON: the format first, so that 'import' tells it from its head; one sample a line.
      function text() {
        var head = { format: cap.format, version: cap.version };
        var lines = [JSON.stringify(head).slice(0, -1) + ","];
        var keys = Object.keys(cap).filter(function (k) { return k !== "format" && k !== "version"; });
        keys.forEach(function (key, i) {
          var value = cap[key], end = i + 1 < keys.length ? "," : "";
          if (Array.isArray(value)) {
            lines.push(JSON.stringify(key) + ": [");
            value.forEach(function (item, j) { lines.push(JSON.stringify(item) + (j + 1 < value.length ? "," : "")); });
            lines.push("]" + end);
          } else {
            lines.push(JSON.stringify(key) + ": " + JSON.stringify(value) + end);
          }
        });
        return lines.join("\n") + "\n}\n";
      }
      function stamp() {
        var d = new Date(), p = function (n) { return (n < 10 ? "0" : "") + n; };
        return d.getFullYear() + p(d.getMonth() + 1) + p(d.getDate()) + "-" + p(d.getHours()) + p(d.getMinutes()) + p(d.getSeconds());
      }
      $("save").addEventListener("click", function () {
        if (!cap) { return; }
        var url = URL.createObjectURL(new Blob([text()], { type: "application/json" }));
        var link = document.createElement("a");
        link.href = url;
        link.download = "forcetrace-capture-" + stamp() + ".json";
        document.body.appendChild(link);
        link.click();
        document.body.removeChild(link);
        setTimeout(function () { URL.revokeObjectURL(url); }, 60000);
        status("saved " + link.download + ": import it with 'forcetrace import FILE.json -o FILE.h5'");
      });
      $("copy").addEventListener("click", function () {
        if (!cap) { return; }
        var out = $("out"), value = text();
        out.value = value;
        out.classList.remove("hidden");
        function fallback() { out.select(); try { document.execCommand("copy"); status("copied"); } catch (error) { status("select the text below and copy it"); } }
        if (navigator.clipboard && navigator.clipboard.writeText) {
          navigator.clipboard.writeText(value).then(function () { status("copied"); }, fallback);
        } else { fallback(); }
      });
      $("start").addEventListener("click", function () { start($("protocol").value, Math.max(1, Math.min(50, parseInt($("rounds").value, 10) || 1))); });

      // '#protocol=app&trials=5' starts at once (for bookmarks and tests).
      var wanted = {};
      location.hash.replace(/^#/, "").split("&").forEach(function (part) {
        var kv = part.split("=");
        if (kv.length === 2) { wanted[kv[0]] = decodeURIComponent(kv[1]); }
      });
      if (wanted.protocol && PROTOCOLS[wanted.protocol]) {
        $("protocol").value = wanted.protocol;
        $("rounds").value = wanted.trials || $("rounds").value;
        start(wanted.protocol, Math.max(1, Math.min(50, parseInt($("rounds").value, 10) || 1)));
      } else {
        prompt();
      }
      window.forcetraceCapture = function () { return cap ? text() : null; };
      $("agent").textContent = navigator.userAgent;
    })();
    """#

    /// The script: the protocol table and constants, then the behaviour.
    static let script = "var PROTOCOLS = \(protocolTable);\nvar VERSION = \"\(ForceTraceVersion.string)\";\n"
        + "var MINIMUM_MS = \(CalibrationSession.minimumTrialNs / 1_000_000);\n" + scriptBody

    /// No fetch of any kind; only the page's own script and stylesheet, by hash.
    static let contentSecurityPolicy = "default-src 'none'; script-src 'sha256-\(SHA256.base64(script))'; "
        + "style-src 'sha256-\(SHA256.base64(css))'; base-uri 'none'; form-action 'none'"

    /// The page.
    public static func html() -> String {
        let options = protocols.map { "<option value=\"\($0.rawValue)\">\($0.rawValue): \($0.classes.map(\.rawValue).joined(separator: ", "))</option>" }
        return """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1, maximum-scale=1, user-scalable=no">
        <meta http-equiv="Content-Security-Policy" content="\(contentSecurityPolicy)">
        <title>forcetrace capture</title>
        <style>\(css)</style>
        </head>
        <body>
        <h1>forcetrace capture</h1>
        <div class="row">
        <label>Protocol <select id="protocol">\(options.joined())</select></label>
        <label>Rounds <input id="rounds" type="number" min="1" max="50" value="\(CalibrationProtocol.defaultTrials)"></label>
        <button id="start" type="button">Start</button>
        <span>kept trials: <span id="count">0</span></span>
        </div>
        <div id="prompt"></div>
        <div id="meter"><div id="bar"></div><div id="peak"></div><span id="force">0.000</span></div>
        <div id="pad">press here</div>
        <div id="status"></div>
        <div class="row">
        <button id="save" type="button">Save JSON</button>
        <button id="copy" type="button">Copy JSON</button>
        </div>
        <textarea id="out" class="hidden" readonly></textarea>
        <p id="agent" class="note"></p>
        <script>\(script)</script>
        </body>
        </html>

        """
    }
}
