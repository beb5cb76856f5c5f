import Foundation

/// The signature text files of SVC2004, the First International Signature
/// Verification Competition (Yeung et al., ICBA 2004): the point count on the
/// first line, then one point a line, `X Y T BUTTON AZIMUTH ALTITUDE PRESSURE`
/// (Task 2) or `X Y T BUTTON` (Task 1). Pen-down runs become pen contacts,
/// pen-up points hover. docs/FORMAT.md, "SVC2004", gives the rules.
public enum SVC2004 {
    /// Most points a file may declare: at the tablet's 100 or so points a
    /// second, hours of writing; the points are held whole (24 bytes each)
    /// because the axes' ranges are those observed.
    static let maximumPoints = 1 << 20
    /// Longest span of time stamps, in ms; keeps nanoseconds within Int64.
    static let maximumSpanMs: Int64 = 1 << 40

    struct Point {
        var x: Int32
        var y: Int32
        var timeMs: Int64
        var down: Bool
        var pressure: Int32
    }

    static func decode(_ source: ByteSource, options: DecodeOptions, into builder: RecordingBuilder) throws {
        let file = source.file
        try source.fill(1)
        if source.isExhausted { throw ForceTraceError(file: file, "the file is empty; expected an SVC2004 signature (the point count, then one point a line)") }
        var reader = LineReader(source: source)
        func fail(_ message: String, hint: String? = nil) -> ForceTraceError {
            ForceTraceError(file: file, location: .line(reader.lineNumber), message, hint: hint)
        }
        func isBlank(_ line: ArraySlice<UInt8>) -> Bool {
            line.allSatisfy { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        }

        var declared: Int?
        var countLine = 0
        var columns = 0
        var points: [Point] = []
        var lastLine = 0
        while var line = try reader.next() {
            if reader.lineNumber == 1, line.starts(with: RecordingHead.byteOrderMark) { line = line.dropFirst(3) }
            if isBlank(line) { continue }
            lastLine = reader.lineNumber
            var fields = FieldScanner(line)
            guard let count = declared else {
                guard let token = fields.token(), fields.atEnd, let value = FieldScanner.parseDecimal(token) else {
                    throw fail("expected the point count, one whole number, on the first line",
                               hint: "an SVC2004 file starts with its number of points, then one 'X Y T BUTTON [AZIMUTH ALTITUDE PRESSURE]' line a point")
                }
                guard value >= 1, value <= Int64(maximumPoints) else {
                    throw fail("declares \(value) points; expected 1 to \(maximumPoints)")
                }
                declared = Int(value)
                countLine = reader.lineNumber
                points.reserveCapacity(Int(value))
                continue
            }
            guard points.count < count else {
                throw fail("a point beyond the \(count) that line \(countLine) declares",
                           hint: "the count on line \(countLine) must match the point lines; fix it or remove the extra lines")
            }
            var values: [Int64] = []
            while let token = fields.token() {
                guard values.count < 7 else { throw fail("more than 7 values; expected X Y T BUTTON AZIMUTH ALTITUDE PRESSURE") }
                guard let value = FieldScanner.parseDecimal(token) else {
                    throw fail("'\(String(decoding: token.prefix(40), as: UTF8.self))' is not a whole number (value \(values.count + 1))")
                }
                values.append(value)
            }
            guard values.count == 4 || values.count == 7 else {
                throw fail("\(values.count) values; expected 4 (X Y T BUTTON, Task 1) or 7 (X Y T BUTTON AZIMUTH ALTITUDE PRESSURE, Task 2)")
            }
            if columns == 0 { columns = values.count }
            guard values.count == columns else {
                throw fail("\(values.count) values where the points before have \(columns); one file holds one layout")
            }
            func int32(_ index: Int, _ name: String) throws -> Int32 {
                guard let value = Int32(exactly: values[index]) else { throw fail("\(name) \(values[index]) does not fit 32 bits") }
                return value
            }
            guard values[3] == 0 || values[3] == 1 else {
                throw fail("button status \(values[3]); expected 0 (pen up) or 1 (pen down)")
            }
            var point = Point(x: try int32(0, "X"), y: try int32(1, "Y"), timeMs: values[2], down: values[3] == 1, pressure: 0)
            if columns == 7 {
                // Azimuth and altitude are checked but not mapped (docs/FORMAT.md says why).
                _ = try int32(4, "azimuth"); _ = try int32(5, "altitude")
                point.pressure = try int32(6, "pressure")
                guard point.pressure >= 0 else { throw fail("pressure \(point.pressure) is negative") }
            }
            if let first = points.first {
                guard point.timeMs >= points[points.count - 1].timeMs else {
                    throw fail("time stamp \(point.timeMs) is before the previous point's, \(points[points.count - 1].timeMs)")
                }
                guard point.timeMs - first.timeMs <= maximumSpanMs else {
                    throw fail("time stamp \(point.timeMs) is more than \(maximumSpanMs) ms after the first point's")
                }
            }
            points.append(point)
        }
        guard let count = declared else { throw ForceTraceError(file: file, "holds only blank lines; expected an SVC2004 signature") }
        guard points.count == count else {
            throw ForceTraceError(file: file, location: .line(countLine),
                                  "declares \(count) points but the file holds \(points.count) (its last point is on line \(lastLine))",
                                  hint: "a cut-off copy? The count on line \(countLine) must match the point lines")
        }
        try build(points, pressure: columns == 7, into: builder)
    }

    /// One recording: the pen in range from the first point to the last,
    /// BTN_TOUCH following the button status.
    private static func build(_ points: [Point], pressure: Bool, into builder: RecordingBuilder) throws {
        var device = DeviceDescription(name: "SVC2004 pen")
        device.enable(type: EventType.syn, code: EventType.syn)
        device.enable(type: EventType.syn, code: EventType.key)
        device.enable(type: EventType.key, code: Button.toolPen)
        device.enable(type: EventType.key, code: Button.touch)
        // The files give no ranges: each axis spans the values it holds.
        device.setAxis(AxisInfo(code: AbsoluteAxis.x, minimum: points.map(\.x).min()!, maximum: points.map(\.x).max()!))
        device.setAxis(AxisInfo(code: AbsoluteAxis.y, minimum: points.map(\.y).min()!, maximum: points.map(\.y).max()!))
        if pressure { device.setAxis(AxisInfo(code: AbsoluteAxis.pressure, minimum: 0, maximum: points.map(\.pressure).max()!)) }
        builder.startRecording(device: device, clock: .relative)
        let t0 = points[0].timeMs
        var previous: Point?
        for point in points {
            let timeNs = (point.timeMs - t0) * 1_000_000
            func add(_ type: UInt16, _ code: UInt16, _ value: Int32) throws {
                try builder.add(InputEvent(timeNs: timeNs, type: type, code: code, value: value))
            }
            if previous == nil { try add(EventType.key, Button.toolPen, 1) }
            if point.down != (previous?.down ?? false) { try add(EventType.key, Button.touch, point.down ? 1 : 0) }
            if point.x != previous?.x { try add(EventType.abs, AbsoluteAxis.x, point.x) }
            if point.y != previous?.y { try add(EventType.abs, AbsoluteAxis.y, point.y) }
            if pressure, point.pressure != previous?.pressure { try add(EventType.abs, AbsoluteAxis.pressure, point.pressure) }
            try add(EventType.syn, Synchronization.report, 0)
            previous = point
        }
        let endNs = (points[points.count - 1].timeMs - t0) * 1_000_000
        if points[points.count - 1].down { try builder.add(InputEvent(timeNs: endNs, type: EventType.key, code: Button.touch, value: 0)) }
        try builder.add(InputEvent(timeNs: endNs, type: EventType.key, code: Button.toolPen, value: 0))
        try builder.add(InputEvent(timeNs: endNs, type: EventType.syn, code: Synchronization.report, value: 0))
        try builder.endRecording()
    }
}

extension RecordingFormat {
    /// SVC2004 signature text.
    public static let svc2004 = RecordingFormat("svc2004")
}

public struct SVC2004Codec: RecordingCodec {
    public init() {}
    public var format: RecordingFormat { .svc2004 }
    public var summary: String { "SVC2004 signature text" }
    public var holdsSeveralRecordings: Bool { false }
    public var writes: Bool { false }
    public func source(file: String, device: Int?) -> RecordingSource { .other("svc2004:\(file)") }

    /// A first line of one whole number, then a line of 4 or 7 whole
    /// numbers: no other format's file starts so (getevent's lines have 3
    /// hex fields or a node, evemu's a letter and a colon).
    public func recognizes(_ head: RecordingHead) -> Bool {
        guard var first = head.firstLine else { return false }
        if first.last == UInt8(ascii: "\r") { first = first.dropLast() }
        var count = FieldScanner(first)
        guard let token = count.token(), count.atEnd, token.count <= 8, token.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return false
        }
        // The next line that is not blank, within the head.
        var start = first.endIndex
        while start < head.bytes.endIndex {
            guard let newline = head.bytes[start...].firstIndex(of: UInt8(ascii: "\n")) else { return false }
            var line = head.bytes[(newline + 1)...]
            line = line[..<(line.firstIndex(of: UInt8(ascii: "\n")) ?? line.endIndex)]
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            start = newline + 1
            var fields = FieldScanner(line)
            var values = 0
            while let token = fields.token() {
                guard FieldScanner.parseDecimal(token) != nil else { return false }
                values += 1
            }
            if values == 0 { continue }
            return values == 4 || values == 7
        }
        return false
    }

    public func decode(_ source: ByteSource, options: DecodeOptions, into builder: RecordingBuilder) throws {
        try SVC2004.decode(source, options: options, into: builder)
    }

    public func encoder(to output: ByteOutput, count: Int, comment: String?) throws -> any RecordingEncoder {
        throw ForceTraceError(file: output.file, "forcetrace reads SVC2004 signatures but does not write them", hint: "export to evemu, libinput or raw")
    }
}
