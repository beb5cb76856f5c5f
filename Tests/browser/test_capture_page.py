"""`forcetrace capture-page` driven in Debian's chromium, headless and offline,
over the DevTools protocol (--remote-debugging-pipe: NUL-separated JSON on
file descriptors 3 and 4, no network and no client library).

The app protocol is pressed with Input.dispatchTouchEvent carrying a scripted
force, the pen protocol with pen pointer events carrying pressure and tilt.
The page's Save button downloads the capture (a Blob link), which must equal
what the page holds; `import` turns it into a recording and `suggest` must
recover the scripted thresholds. No console message may appear (so no CSP
violation)."""
import json
import os
import subprocess
import time

import h5py
import pytest

from test_html_report import chromium, forcetrace, offline, run  # noqa: F401 (fixtures)

# The app script: each class's peaks (Touch.force) lie in a band, and the
# scripted thresholds sit in the gaps between the bands.
TAP = [0.08, 0.12, 0.18, 0.1, 0.15]
PEEK = [0.32, 0.4, 0.48, 0.36, 0.44]
POP = [0.72, 0.8, 0.9, 0.76, 0.86]
SCRIPTED_PEEK, SCRIPTED_POP = 0.25, 0.6
# suggest puts each threshold inside the gap between the classes it
# separates: the tolerance is the gap's half width either side of the script.
PEEK_TOLERANCE = min(SCRIPTED_PEEK - max(TAP), min(PEEK) - SCRIPTED_PEEK)   # 0.07
POP_TOLERANCE = min(SCRIPTED_POP - max(PEEK), min(POP) - SCRIPTED_POP)      # 0.12
FRAME_S = 0.008


class DevTools:
    """A browser started with --remote-debugging-pipe, and one page's session."""

    def __init__(self, chromium, tmp_path):  # noqa: F811
        to_browser = os.pipe()
        from_browser = os.pipe()
        # Above 4, so that dup2 onto 3 and 4 in the child cannot clobber them.
        high = [os.dup2(fd, 100 + i) for i, fd in enumerate(to_browser + from_browser)]
        for fd in to_browser + from_browser:
            os.close(fd)
        self.write_fd, self.read_fd = high[1], high[2]

        def child_fds():
            os.dup2(high[0], 3)
            os.dup2(high[3], 4)

        command = offline([
            chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
            "--remote-debugging-pipe", "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=http://127.0.0.1:9",
            "--window-size=800,900", f"--user-data-dir={tmp_path / 'profile'}", "about:blank",
        ])
        self.process = subprocess.Popen(command, pass_fds=(3, 4), preexec_fn=child_fds,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(high[0])
        os.close(high[3])
        self.buffer = b""
        self.next_id = 0
        self.events = []
        targets = self.call("Target.getTargets")["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.call("Target.attachToTarget", targetId=page["targetId"], flatten=True)["sessionId"]

    def close(self):
        try:
            self.call("Browser.close")
        except (OSError, RuntimeError):
            pass
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self.write_fd)
        os.close(self.read_fd)

    def _message(self, deadline):
        while b"\0" not in self.buffer:
            if time.monotonic() > deadline:
                raise RuntimeError("chromium did not answer in time")
            chunk = os.read(self.read_fd, 1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed the pipe")
            self.buffer += chunk
        message, _, self.buffer = self.buffer.partition(b"\0")
        return json.loads(message)

    def call(self, method, session=False, **params):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = self.session
        os.write(self.write_fd, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + 60
        while True:
            answer = self._message(deadline)
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer.get("result", {})
            self.events.append(answer)

    def page(self, method, **params):
        return self.call(method, session=True, **params)

    def wait_for(self, method, seconds=60):
        deadline = time.monotonic() + seconds
        while True:
            for index, event in enumerate(self.events):
                if event.get("method") == method:
                    return self.events.pop(index)
            self.events.append(self._message(deadline))

    def evaluate(self, expression):
        result = self.page("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        assert "exceptionDetails" not in result, result
        return result["result"].get("value")

    def console(self):
        """Console calls, log entries and exceptions so far (the page makes none)."""
        kinds = {"Runtime.consoleAPICalled", "Log.entryAdded", "Runtime.exceptionThrown"}
        return [event for event in self.events if event.get("method") in kinds]


@pytest.fixture
def capture_page(forcetrace, chromium, tmp_path):  # noqa: F811
    page = tmp_path / "capture.html"
    run(forcetrace, "capture-page", "-o", page)
    browser = DevTools(chromium, tmp_path)
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    browser.call("Browser.setDownloadBehavior", behavior="allow", downloadPath=str(downloads), eventsEnabled=True)
    for domain in ["Page", "Runtime", "Log"]:
        browser.page(f"{domain}.enable")
    yield browser, page, downloads
    browser.close()


def open_page(browser, page, fragment, touch):
    if touch:
        browser.page("Emulation.setTouchEmulationEnabled", enabled=True, maxTouchPoints=5)
    browser.page("Page.navigate", url=page.as_uri() + fragment)
    browser.wait_for("Page.loadEventFired")
    rect = browser.evaluate("JSON.stringify(document.getElementById('pad').getBoundingClientRect())")
    return json.loads(rect)


def shape(fraction):
    """Rise over 40 %, hold 20 %, fall over 40 %, as the calibration simulator scripts it."""
    return fraction / 0.4 if fraction < 0.4 else 1.0 if fraction < 0.6 else max(0.0, (1 - fraction) / 0.4)


def save(browser, downloads):
    """Clicks Save JSON and returns the downloaded file's text, which must equal the page's own."""
    box = json.loads(browser.evaluate("JSON.stringify(document.getElementById('save').getBoundingClientRect())"))
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    for kind in ["mousePressed", "mouseReleased"]:
        browser.page("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", buttons=1 if kind == "mousePressed" else 0,
                     clickCount=1)
    event = browser.wait_for("Browser.downloadProgress")
    while event["params"]["state"] == "inProgress":
        event = browser.wait_for("Browser.downloadProgress")
    assert event["params"]["state"] == "completed", event
    files = [path for path in downloads.iterdir() if path.suffix == ".json"]
    assert len(files) == 1, files
    text = files[0].read_text()
    assert text == browser.evaluate("window.forcetraceCapture()")
    return files[0], text


def test_app_protocol_with_touch_force(forcetrace, capture_page, tmp_path):  # noqa: F811
    browser, page, downloads = capture_page
    rect = open_page(browser, page, "#protocol=app&trials=5", touch=True)
    x, y = rect["x"] + rect["width"] / 2, rect["y"] + rect["height"] / 2
    frames = 40
    for round_index in range(5):
        for peak in [TAP[round_index], PEEK[round_index], POP[round_index]]:
            for step in range(frames + 1):
                force = peak if step == frames // 2 else peak * shape(step / frames)
                kind = "touchStart" if step == 0 else "touchEnd" if step == frames else "touchMove"
                points = [] if kind == "touchEnd" else [{"x": x + step, "y": y, "force": round(force, 4), "radiusX": 8, "radiusY": 5, "id": 1}]
                browser.page("Input.dispatchTouchEvent", type=kind, touchPoints=points)
                time.sleep(FRAME_S)
            time.sleep(0.05)
    assert browser.evaluate("document.getElementById('count').textContent") == "15"
    assert browser.evaluate("document.getElementById('prompt').textContent").startswith("Done: 15 trials")
    capture, text = save(browser, downloads)
    data = json.loads(text)
    assert text.startswith('{"format":"forcetrace-browser-capture","version":1,\n')
    assert [t["class"] for t in data["trials"]] == ["tap", "peek-press", "pop-press"] * 5
    assert data["screen"]["devicePixelRatio"] > 0 and data["timeOrigin"] > 1.5e12
    assert max(item["force"] for item in data["touch"]) == pytest.approx(0.9, abs=1e-6)

    trace = tmp_path / "capture.h5"
    run(forcetrace, "import", capture, "-o", trace)
    suggestion = json.loads(run(forcetrace, "suggest", trace, "--format", "json"))
    app = suggestion["app"]
    print(f"\ncapture-page app protocol in chromium: suggested peek {app['peek']:.4f} (raw {app['peek_raw']}), "
          f"pop {app['pop']:.4f} (raw {app['pop_raw']}); scripted peek {SCRIPTED_PEEK} ± {PEEK_TOLERANCE:.2f}, "
          f"pop {SCRIPTED_POP} ± {POP_TOLERANCE:.2f}; balanced accuracy {app['balanced_accuracy']}")
    assert abs(app["peek"] - SCRIPTED_PEEK) <= PEEK_TOLERANCE
    assert abs(app["pop"] - SCRIPTED_POP) <= POP_TOLERANCE
    assert app["confusion"] == [5, 0, 0, 0, 5, 0, 0, 0, 5]
    # The raw thresholds separate the scripted peaks as stored (force x 65535, rounded).
    assert round(max(TAP) * 65535) < app["peek_raw"] <= round(min(PEEK) * 65535) + 1
    assert round(max(PEEK) * 65535) < app["pop_raw"] <= round(min(POP) * 65535) + 1
    assert browser.console() == []


def test_pen_protocol_with_pressure_and_tilt(forcetrace, capture_page, tmp_path):  # noqa: F811
    browser, page, downloads = capture_page
    rect = open_page(browser, page, "#protocol=pen&trials=2", touch=False)
    x0, y = rect["x"] + 40, rect["y"] + rect["height"] / 2
    outside = {"x": rect["x"] + rect["width"] / 2, "y": rect["y"] - 20}

    def pen(kind, x, y, force=0.0, tilt=(0, 0), buttons=0):
        browser.page("Input.dispatchMouseEvent", type=kind, x=x, y=y, pointerType="pen", force=force, tiltX=tilt[0], tiltY=tilt[1],
                     button="left" if kind != "mouseMoved" else "none", buttons=buttons, clickCount=1 if kind != "mouseMoved" else 0)
        time.sleep(FRAME_S)

    peaks = {"stroke-light": [0.21, 0.24], "stroke-normal": [0.43, 0.47], "stroke-firm": [0.66, 0.71], "full-press": [0.93, 0.97]}
    tilts = {"stroke-light": (10, -5), "stroke-normal": (25, 15), "stroke-firm": (-30, 40), "full-press": (45, -45)}
    for round_index in range(2):
        for name in ["hover", "stroke-light", "stroke-normal", "stroke-firm", "full-press"]:
            for step in range(12):
                pen("mouseMoved", x0 + step * 3, y)
            if name != "hover":
                peak, tilt = peaks[name][round_index], tilts[name]
                frames = 30
                pen("mousePressed", x0 + 40, y, force=0.02, tilt=tilt, buttons=1)
                for step in range(1, frames):
                    force = peak if step == frames // 2 else max(0.02, peak * shape(step / frames))
                    pen("mouseMoved", x0 + 40 + step * 4, y, force=round(force, 4), tilt=tilt, buttons=1)
                pen("mouseReleased", x0 + 40 + frames * 4, y, tilt=tilt)
            pen("mouseMoved", outside["x"], outside["y"])
            time.sleep(0.05)
    assert browser.evaluate("document.getElementById('count').textContent") == "10"
    capture, text = save(browser, downloads)
    data = json.loads(text)
    assert {item["pointerType"] for item in data["pointer"]} == {"pen"}
    assert any(item.get("coalesced") for item in data["pointer"]), "pointermove is stored as its coalesced events"

    trace = tmp_path / "pen.h5"
    run(forcetrace, "import", capture, "-o", trace)
    evemu = run(forcetrace, "export", trace, "--format", "evemu")
    assert "A: 1a -90 90 0 0 57" in evemu and "A: 1b -90 90 0 0 57" in evemu, "ABS_TILT_X/Y in degrees"
    tilt_x = {int(line.split()[4]) for line in evemu.splitlines() if line.startswith("E: ") and line.split()[2:4] == ["0003", "001a"]}
    tilt_y = {int(line.split()[4]) for line in evemu.splitlines() if line.startswith("E: ") and line.split()[2:4] == ["0003", "001b"]}
    assert tilt_x == {t[0] for t in tilts.values()} | {0}
    assert tilt_y == {t[1] for t in tilts.values()} | {0}
    with h5py.File(trace, "r") as f:
        assert [name[-4:] for name in f["recordings"]] == ["-pen"], "one recording, of the pen"
        labels = next(iter(f["recordings"].values()))["labels"]
        assert labels.attrs["protocol"] in ("pen", b"pen")
        classes = [c.decode() if isinstance(c, bytes) else c for c in labels["class"][:]]
        stored = dict(zip(range(len(classes)), zip(classes, labels["peak"][:], labels["contact"][:])))
    assert classes == ["hover", "stroke-light", "stroke-normal", "stroke-firm", "full-press"] * 2
    for index, (name, peak, contact) in stored.items():
        if name == "hover":
            assert contact == -1
            continue
        assert contact >= 0, f"trial {index} matched its contact"
        # Chromium carries force as a float: one unit either way.
        assert abs(int(peak) - round(peaks[name][index // 5] * 65535)) <= 1, (index, name, peak)
    suggestion = json.loads(run(forcetrace, "suggest", trace, "--format", "json"))
    assert suggestion["protocol"] == "pen"
    assert suggestion["trials"] == {"full-press": 2, "hover": 2, "stroke-firm": 2, "stroke-light": 2, "stroke-normal": 2}
    print(f"\ncapture-page pen protocol in chromium: peaks {[int(p) for _, p, _ in stored.values()]}, trials {suggestion['trials']}")
    assert browser.console() == []
