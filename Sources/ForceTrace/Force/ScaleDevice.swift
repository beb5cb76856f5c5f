import Foundation

/// A scale being read: its descriptor to poll, and what it has sent.
public protocol ScaleDevice: AnyObject {
    var kind: ScaleKind { get }
    /// The node, as given.
    var path: String { get }
    /// What the scale calls itself (a HID name; a serial scale's rate), from outside: escape it.
    var name: String { get }
    /// The power of ten the scale's raw values carry (HID's Unit Exponent), 0 for a serial scale.
    var unitExponent: Int { get }
    var descriptor: FileDescriptor { get }
    /// The readings that have arrived, stamped `timeNs`; none when nothing
    /// has. Throws `ForceTraceError.device` when the scale is gone.
    func readAvailable(timeNs: Int64) throws -> [ScaleReading]
    func close()
}

extension ForceTraceError {
    /// A scale that stopped answering: unplugged, or its line hung up.
    static func scaleGone(_ path: String, _ detail: String, errno: Int32? = nil) -> ForceTraceError {
        .device(path, "the scale is gone (\(detail)): no force was recorded after this",
                hint: "plug the scale in again and record anew; what was recorded before is kept", errno: errno)
    }
}

/// `--scale DEVICE[:BAUD]`: a hidraw node, or a serial tty at a rate.
public struct ScaleAddress: Sendable, Equatable {
    public var path: String
    /// For a serial scale; nil for a hidraw node (and 9600 for a serial one without).
    public var baud: Int?

    public static let defaultBaud = 9600
    /// Rates a serial scale is opened at (termios' names for them).
    static let rates: [Int: speed_t] = [
        1200: speed_t(B1200), 2400: speed_t(B2400), 4800: speed_t(B4800), 9600: speed_t(B9600),
        19200: speed_t(B19200), 38400: speed_t(B38400), 57600: speed_t(B57600), 115_200: speed_t(B115200),
    ]

    public init(path: String, baud: Int?) {
        self.path = path
        self.baud = baud
    }

    /// "PATH" or "PATH:BAUD"; nil with a reason when BAUD is not a rate.
    public static func parse(_ text: String) -> Result<ScaleAddress, ForceTraceError> {
        if let colon = text.lastIndex(of: ":"), !text[text.index(after: colon)...].isEmpty,
           text[text.index(after: colon)...].allSatisfy(\.isASCII), text[text.index(after: colon)...].allSatisfy(\.isNumber) {
            let rate = Int(text[text.index(after: colon)...]) ?? -1
            guard rates[rate] != nil else {
                return .failure(ForceTraceError(file: text, "\(rate) is not a serial rate forcetrace sets",
                                                hint: "one of " + rates.keys.sorted().map(String.init).joined(separator: ", ")))
            }
            return .success(ScaleAddress(path: String(text[..<colon]), baud: rate))
        }
        return .success(ScaleAddress(path: text, baud: nil))
    }

    /// Opens the scale: a hidraw node by its name (/dev/hidrawN), any other
    /// node as a serial tty.
    public func open() throws -> any ScaleDevice {
        if (path as NSString).lastPathComponent.hasPrefix("hidraw") {
            guard baud == nil else {
                throw ForceTraceError(file: path, "a hidraw node has no serial rate", hint: "give it without ':\(baud!)'", kind: .device)
            }
            return try HIDScale(path: path)
        }
        return try SerialScale(path: path, baud: baud ?? Self.defaultBaud)
    }
}

/// Opens `path` for a scale, as a character device; a clear error otherwise.
func openScaleNode(_ path: String, _ flags: Int32) throws -> FileDescriptor {
    let fd: FileDescriptor
    do { fd = try FileDescriptor.open(path, flags | O_NONBLOCK | O_NOCTTY) } catch { throw ForceTraceError.device(error, path: path) }
    if let status = try? fd.status(), (status.st_mode & S_IFMT) != S_IFCHR {
        fd.closeIgnoringErrors()
        throw ForceTraceError.device(path, "is not a device node: a scale is a serial tty (/dev/ttyUSB0) or a hidraw node (/dev/hidraw0)")
    }
    return fd
}

/// Reads a descriptor into `buffer`: the byte count, 0 when nothing is
/// waiting, and an error naming the scale when it is gone (EIO, ENODEV,
/// ENXIO, or the end of a tty whose line hung up).
func readScale(_ fd: FileDescriptor, into buffer: inout [UInt8]) throws -> Int? {
    do throws(SystemCallError) {
        let count = try buffer.withUnsafeMutableBytes { raw in Result { () throws(SystemCallError) in try fd.read(into: raw.baseAddress!, count: raw.count) } }.get()
        return count == 0 ? nil : count
    } catch {
        if error.errno == EAGAIN || error.errno == EWOULDBLOCK { return 0 }
        if [EIO, ENODEV, ENXIO].contains(error.errno) {
            throw ForceTraceError.scaleGone(fd.path, "read failed: \(error.reason)", errno: error.errno)
        }
        throw ForceTraceError.device(error, path: fd.path)
    }
}

/// A scale on a serial line sending a reading a line (`SerialScaleLine`).
public final class SerialScale: ScaleDevice {
    public let kind = ScaleKind.serial
    public let path: String
    public let name: String
    public let unitExponent = 0
    public let descriptor: FileDescriptor
    private var lines = ScaleLineAssembler()
    private var buffer = [UInt8](repeating: 0, count: 4096)
    private var closed = false

    public init(path: String, baud: Int) throws {
        guard let rate = ScaleAddress.rates[baud] else {
            throw ForceTraceError(file: path, "\(baud) is not a serial rate forcetrace sets", kind: .device)
        }
        let fd = try openScaleNode(path, O_RDWR)
        do { try fd.makeRawSerial(baud: rate) } catch {
            fd.closeIgnoringErrors()
            if error.errno == ENOTTY {
                throw ForceTraceError.device(path, "is not a serial tty (\(error.function): \(error.reason))",
                                             hint: "a serial scale shows as /dev/ttyUSB0 or /dev/ttyACM0; a USB HID scale as /dev/hidraw0", errno: error.errno)
            }
            throw ForceTraceError.device(error, path: path)
        }
        self.path = path
        name = "serial \(baud) baud"
        descriptor = fd
    }

    public func readAvailable(timeNs: Int64) throws -> [ScaleReading] {
        var readings: [ScaleReading] = []
        while true {
            guard let count = try readScale(descriptor, into: &buffer) else {
                throw ForceTraceError.scaleGone(path, "its line hung up")
            }
            if count == 0 { return readings }
            for line in lines.append(buffer[..<count]) {
                readings.append(line.map { SerialScaleLine.parse($0, timeNs: timeNs) }
                                ?? .withoutWeight(timeNs: timeNs, status: .unreadable))
            }
        }
    }

    public func close() {
        if !closed { descriptor.closeIgnoringErrors() }
        closed = true
    }

    deinit { close() }
}

/// A USB scale of the HID Scales page, read through hidraw: one report a read.
public final class HIDScale: ScaleDevice {
    public let kind = ScaleKind.hid
    public let path: String
    public let name: String
    public let descriptor: FileDescriptor
    public let report: HIDScaleReport
    public var unitExponent: Int { report.unitExponent }
    private var buffer = [UInt8](repeating: 0, count: 4097)
    private var closed = false

    public init(path: String) throws {
        let fd = try openScaleNode(path, O_RDONLY)
        do {
            let bytes: [UInt8]
            do { bytes = try fd.hidReportDescriptor() } catch {
                if error.errno == ENOTTY || error.errno == EINVAL {
                    throw ForceTraceError.device(path, "is not a hidraw node (\(error.function): \(error.reason))",
                                                 hint: "a USB HID scale shows as /dev/hidrawN", errno: error.errno)
                }
                throw ForceTraceError.device(error, path: path)
            }
            report = try HIDScaleReport(HIDReportDescriptor(bytes, name: path), name: path)
            name = (try? fd.hidRawName()).map { String(decoding: $0, as: UTF8.self) } ?? ""
        } catch {
            fd.closeIgnoringErrors()
            throw error
        }
        self.path = path
        descriptor = fd
    }

    public func readAvailable(timeNs: Int64) throws -> [ScaleReading] {
        var readings: [ScaleReading] = []
        while true {
            guard let count = try readScale(descriptor, into: &buffer) else {
                throw ForceTraceError.scaleGone(path, "end of file")
            }
            if count == 0 { return readings }
            if let reading = report.reading(Array(buffer[..<count]), timeNs: timeNs) { readings.append(reading) }
        }
    }

    public func close() {
        if !closed { descriptor.closeIgnoringErrors() }
        closed = true
    }

    deinit { close() }
}
