import Foundation

/// Writes JSON straight into a byte buffer, in the layout of `JSONText`
/// (two-space indent; arrays of plain values on one line), with no
/// allocation per value: `report --json` writes millions of numbers.
/// Callers write keys in byte order; debug builds check that they do.
struct JSONWriter: TextOutputStream {
    private var bytes: ByteBuffer
    private struct Level {
        var isObject: Bool
        var isFlat: Bool
        var count = 0
        #if DEBUG
        var lastKey: StaticString?
        #endif
    }
    /// The innermost open container (at depth 0, the document: no commas,
    /// no newlines), and the ones around it: keys and values touch only `top`.
    private var top = Level(isObject: true, isFlat: false)
    private var outer: [Level] = []
    private var depth = 0

    init(capacity: Int = 1 << 16) { bytes = ByteBuffer(capacity: capacity) }

    /// Hands the text to `sink` a megabyte at a time instead of holding it all.
    init(sink: @escaping (UnsafeBufferPointer<UInt8>) -> Void) {
        bytes = ByteBuffer(capacity: 1 << 21)
        bytes.sink = sink
    }

    // MARK: - Containers

    private mutating func open(_ level: Level) {
        outer.append(top)
        top = level
        depth += 1
    }

    private mutating func close() -> Level {
        let level = top
        top = outer.removeLast()
        depth -= 1
        return level
    }

    mutating func beginObject() {
        beforeValue()
        bytes.append(UInt8(ascii: "{"))
        open(Level(isObject: true, isFlat: false))
    }

    mutating func endObject() {
        if close().count > 0 { newline(depth) }
        bytes.append(UInt8(ascii: "}"))
        bytes.drainIfFull()
    }

    /// `flat`: every element is a number, string, bool or null (one line).
    mutating func beginArray(flat: Bool) {
        beforeValue()
        bytes.append(UInt8(ascii: "["))
        open(Level(isObject: false, isFlat: flat))
    }

    mutating func endArray() {
        let level = close()
        if level.count > 0 && !level.isFlat { newline(depth) }
        bytes.append(UInt8(ascii: "]"))
    }

    mutating func key(_ name: StaticString) {
        assert(depth > 0 && top.isObject, "a key outside an object")
        checkOrder(name)
        // Straight from the literal's storage: through withUTF8Buffer's
        // closure a key cost about 170 instructions (callgrind).
        if name.hasPointerRepresentation {
            bytes.key(UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount), comma: top.count > 0, indent: 2 * depth)
        } else {
            name.withUTF8Buffer { bytes.key($0, comma: top.count > 0, indent: 2 * depth) }
        }
        top.count += 1
    }

    /// Keys for the objects begun next here (one level in): `key(_:_:)`
    /// writes one with a single copy. The contacts' objects repeat their
    /// keys hundreds of thousands of times.
    func prepareKeys(_ names: [StaticString]) -> PreparedKeys {
        PreparedKeys(names, depth: depth + 1)
    }

    /// Key `index` of `keys`, in an object at the depth they were prepared for.
    mutating func key(_ keys: PreparedKeys, _ index: Int) {
        assert(depth == keys.depth && top.isObject, "a prepared key at another depth")
        checkOrder(keys.names[index])
        bytes.prepared(keys.text(index), comma: top.count > 0)
        top.count += 1
    }

    /// Debug builds: the open object's keys come in byte order.
    @inline(__always)
    private mutating func checkOrder(_ name: StaticString) {
        #if DEBUG
        if let last = top.lastKey { assert(Self.precedes(last, name), "JSON keys out of order: \(last) before \(name)") }
        top.lastKey = name
        #endif
    }

    // MARK: - Values

    mutating func null() { beforeValue(); append("null") }
    mutating func bool(_ value: Bool) { beforeValue(); append(value ? "true" : "false") }

    mutating func int<T: BinaryInteger>(_ value: T) {
        beforeValue()
        writeInteger(Int64(value))
    }

    /// Shortest text that reads back as the same double (Swift's `description`); null when not finite.
    mutating func double(_ value: Double) {
        beforeValue()
        guard value.isFinite else { append("null"); return }
        // Per-contact doubles repeat (pressure levels over a span): their text is kept by bit pattern.
        if bytes.appendCachedDouble(value.bitPattern) { return }
        let start = bytes.position
        value.write(to: &self)
        bytes.cacheDouble(value.bitPattern, from: start)
    }

    mutating func double(_ value: Double?) {
        if let value { double(value) } else { null() }
    }

    mutating func int<T: BinaryInteger>(_ value: T?) {
        if let value { int(value) } else { null() }
    }

    /// `ns / 1e9` as an exact decimal: it parses to the same double as
    /// `Double(ns) / 1e9` (both are the correctly rounded quotient), without
    /// a float-to-text conversion.
    mutating func seconds(_ ns: Int64?) {
        guard let ns else { null(); return }
        guard ns.magnitude < 1 << 53 else { double(Double(ns) / 1e9); return }
        beforeValue()
        bytes.seconds(ns)
    }

    mutating func string(_ value: String) {
        beforeValue()
        // Most strings (class names, labels) need no escapes: one scan of
        // their UTF-8 in place, one copy.
        let plain = value.utf8.withContiguousStorageIfAvailable { utf8 -> Bool in
            guard utf8.allSatisfy({ $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) else { return false }
            bytes.quoted(utf8)
            return true
        }
        if plain == true { return }
        // Escapes needed (or storage not contiguous): scalar by scalar.
        bytes.append(UInt8(ascii: "\""))
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": append("\\\"")
            case "\\": append("\\\\")
            case "\n": append("\\n")
            case "\r": append("\\r")
            case "\t": append("\\t")
            case let control where control.value < 0x20:
                append("\\u00")
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(hex[Int(control.value >> 4)]); bytes.append(hex[Int(control.value & 15)])
            default:
                bytes.append(contentsOf: Array(String(scalar).utf8))
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    mutating func string(_ value: StaticString) {
        beforeValue()
        bytes.append(UInt8(ascii: "\""))
        value.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Writes `count` elements into the open array, `render(index, &writer)`
    /// each, on up to `threads` threads in batches of `batch`: the text is
    /// the same as rendering them in order here, and memory stays bounded.
    mutating func elements(_ count: Int, batch: Int = 2_048,
                           threads: Int = min(4, ProcessInfo.processInfo.activeProcessorCount),
                           render: (Int, inout JSONWriter) -> Void) {
        precondition(depth > 0 && !top.isObject && !top.isFlat, "elements outside an array of objects")
        let start = top.count
        guard threads > 1 && count > batch else {
            for index in 0..<count { render(index, &self) }
            return
        }
        // Each worker renders into its own writer, nested as this one is.
        var parts = (0..<threads).map { _ in JSONWriter(nestedIn: self, capacity: batch * 1_536) }
        var first = 0
        while first < count {
            let rounds = min(threads, (count - first + batch - 1) / batch), batchStart = first
            parts.withUnsafeMutableBufferPointer { parts in
                let shared = UncheckedParts(parts: parts)
                withoutActuallyEscaping(render) { render in
                    let renderer = UncheckedRender(render: render)
                    DispatchQueue.concurrentPerform(iterations: rounds) { part in
                        let low = batchStart + part * batch, high = min(count, low + batch)
                        // On this thread's stack while it renders: the writers lie
                        // side by side in `parts`, and a count written per value
                        // in one cache line with another thread's cost up to five
                        // times the rendering (Tests/bench/README.md, "False sharing in `--json`").
                        var writer = shared.parts[part]
                        writer.restart(elementsBefore: start + low)
                        for index in low..<high { renderer.render(index, &writer) }
                        shared.parts[part] = writer
                    }
                }
            }
            for part in 0..<rounds {
                bytes.append(buffer: parts[part].bytes)
                bytes.drainIfFull()
            }
            first = min(count, first + rounds * batch)
        }
        top.count = start + count
    }

    /// A writer whose open containers are `parent`'s, for `elements`.
    private init(nestedIn parent: JSONWriter, capacity: Int) {
        bytes = ByteBuffer(capacity: capacity)
        top = parent.top
        outer = parent.outer
        depth = parent.depth
    }

    /// Empties the buffer; the open array has had `elementsBefore` elements.
    private mutating func restart(elementsBefore: Int) {
        bytes.removeAll()
        top.count = elementsBefore
    }

    mutating func integers<C: Collection>(_ values: C) where C.Element: BinaryInteger {
        beginArray(flat: true)
        for value in values { int(value) }
        endArray()
    }

    mutating func doubles<C: Collection>(_ values: C) where C.Element == Double {
        beginArray(flat: true)
        for value in values { double(value) }
        endArray()
    }

    /// The document, ending in a newline.
    mutating func finish() -> [UInt8] {
        precondition(depth == 0, "unclosed JSON container")
        bytes.append(UInt8(ascii: "\n"))
        bytes.drain()
        return bytes.array
    }

    // MARK: - TextOutputStream, for Double.write(to:)

    mutating func write(_ string: String) { var copy = string; copy.withUTF8 { bytes.append(contentsOf: $0) } }
    mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) { bytes.append(contentsOf: buffer) }

    // MARK: - Layout

    private mutating func beforeValue() {
        guard !top.isObject else { return }
        if top.isFlat {
            if top.count > 0 { bytes.append(UInt8(ascii: ",")); bytes.append(UInt8(ascii: " ")) }
        } else {
            bytes.newline(comma: top.count > 0, indent: 2 * depth)
        }
        top.count += 1
    }

    private mutating func newline(_ depth: Int) {
        bytes.newline(comma: false, indent: 2 * depth)
    }

    private mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    private mutating func writeInteger(_ value: Int64) {
        bytes.integer(value)
    }

    private static func precedes(_ lhs: StaticString, _ rhs: StaticString) -> Bool {
        lhs.withUTF8Buffer { left in rhs.withUTF8Buffer { right in left.lexicographicallyPrecedes(right) } }
    }
}

/// A growable byte buffer without Array's per-append checks.
final class ByteBuffer {
    private var base: UnsafeMutablePointer<UInt8>
    private var count = 0
    private var capacity: Int
    /// The text of recently written doubles; made at the first double.
    private var doubles: DoubleTextCache?
    /// A cache line after the fields written per value, so that the next
    /// object on the heap (another thread's buffer) never shares theirs.
    private let padding: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)

    /// Bytes held so far (an offset for `cacheDouble`).
    var position: Int { count }

    /// Appends the text `cacheDouble` kept for `bits`; false when it has none.
    @inline(__always)
    func appendCachedDouble(_ bits: UInt64) -> Bool {
        guard let doubles else { self.doubles = DoubleTextCache(); return false }
        reserve(DoubleTextCache.longest)
        let length = doubles.copy(bits, to: base + count)
        count += length
        return length > 0
    }

    /// Keeps the text from `start` to the end as the text of `bits`.
    func cacheDouble(_ bits: UInt64, from start: Int) {
        doubles?.keep(bits, UnsafeBufferPointer(start: base + start, count: count - start))
    }
    /// Where full buffers go; nil keeps everything.
    var sink: ((UnsafeBufferPointer<UInt8>) -> Void)?

    func drainIfFull() {
        if sink != nil && count >= 1 << 20 { drain() }
    }

    func drain() {
        guard let sink, count > 0 else { return }
        sink(UnsafeBufferPointer(start: base, count: count))
        count = 0
    }

    init(capacity: Int) {
        self.capacity = max(64, capacity)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    @inline(__always)
    private func reserve(_ extra: Int) {
        guard count + extra > capacity else { return }
        var newCapacity = capacity * 2
        while newCapacity < count + extra { newCapacity *= 2 }
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        grown.update(from: base, count: count)
        base.deallocate()
        base = grown
        capacity = newCapacity
    }

    @inline(__always)
    func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    @inline(__always)
    func append(contentsOf buffer: UnsafeBufferPointer<UInt8>) {
        guard let source = buffer.baseAddress, buffer.count > 0 else { return }
        reserve(buffer.count)
        (base + count).update(from: source, count: buffer.count)
        count += buffer.count
    }

    /// Appends what `other` holds; with a sink, hands it over without a copy.
    func append(buffer other: ByteBuffer) {
        if let sink {
            drain()
            if other.count > 0 { sink(UnsafeBufferPointer(start: other.base, count: other.count)) }
        } else {
            append(contentsOf: UnsafeBufferPointer(start: other.base, count: other.count))
        }
    }

    func removeAll() { count = 0 }

    func append(contentsOf bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { append(contentsOf: $0) }
    }

    /// `,` when `comma`, then a newline and `indent` spaces.
    @inline(__always)
    func newline(comma: Bool, indent: Int) {
        reserve(2 + indent + 8)
        var position = count
        if comma { base[position] = UInt8(ascii: ","); position += 1 }
        base[position] = UInt8(ascii: "\n")
        spaces(at: position + 1, indent)
        count = position + 1 + indent
    }

    /// `,` when `comma`, newline, indent, then `"name": `: one reserve for the lot.
    @inline(__always)
    func key(_ name: UnsafeBufferPointer<UInt8>, comma: Bool, indent: Int) {
        reserve(2 + indent + 8 + name.count + 4)
        var position = count
        if comma { base[position] = UInt8(ascii: ","); position += 1 }
        base[position] = UInt8(ascii: "\n")
        spaces(at: position + 1, indent)
        position += 1 + indent
        base[position] = UInt8(ascii: "\"")
        if let source = name.baseAddress { Self.copyShort(source, name.count, to: base + position + 1) }
        position += 1 + name.count
        base[position] = UInt8(ascii: "\""); base[position + 1] = UInt8(ascii: ":"); base[position + 2] = UInt8(ascii: " ")
        count = position + 3
    }

    /// Copies a few bytes (a key, a digit string) in place: a call to
    /// memmove cost more than the copy. Eight bytes at a time, the last
    /// eight overlapping, so nothing past `count` is read.
    @inline(__always)
    private static func copyShort(_ source: UnsafePointer<UInt8>, _ count: Int, to target: UnsafeMutablePointer<UInt8>) {
        guard count >= 8 else {
            for index in 0..<count { target[index] = source[index] }
            return
        }
        let from = UnsafeRawPointer(source), to = UnsafeMutableRawPointer(target)
        var offset = 0
        while offset + 8 < count {
            to.storeBytes(of: from.loadUnaligned(fromByteOffset: offset, as: UInt64.self), toByteOffset: offset, as: UInt64.self)
            offset += 8
        }
        to.storeBytes(of: from.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self), toByteOffset: count - 8, as: UInt64.self)
    }

    /// `indent` spaces at `position`, eight at a time (the caller reserved 8 more).
    @inline(__always)
    private func spaces(at position: Int, _ indent: Int) {
        var offset = 0
        while offset < indent {
            UnsafeMutableRawPointer(base + position + offset).storeBytes(of: 0x2020_2020_2020_2020 as UInt64, as: UInt64.self)
            offset += 8
        }
    }

    /// `,` when `comma`, then a key's prepared text (`PreparedKeys`).
    @inline(__always)
    func prepared(_ text: UnsafeBufferPointer<UInt8>, comma: Bool) {
        reserve(text.count + 1)
        var position = count
        if comma { base[position] = UInt8(ascii: ","); position += 1 }
        Self.copyShort(text.baseAddress!, text.count, to: base + position)
        count = position + text.count
    }

    /// `"` + `text` + `"`, with one reserve.
    @inline(__always)
    func quoted(_ text: UnsafeBufferPointer<UInt8>) {
        reserve(text.count + 2)
        base[count] = UInt8(ascii: "\"")
        if let source = text.baseAddress { (base + count + 1).update(from: source, count: text.count) }
        base[count + 1 + text.count] = UInt8(ascii: "\"")
        count += text.count + 2
    }

    @inline(__always)
    func integer(_ value: Int64) {
        reserve(20)
        var position = count
        if value < 0 { base[position] = UInt8(ascii: "-"); position += 1 }
        var magnitude = value.magnitude
        // Most counts in a report are one digit (crossings, slots, flags).
        if magnitude < 10 {
            base[position] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude)
            count = position + 1
            return
        }
        // The digit count by comparison (counts are small), then the digits
        // from the last one back, in place.
        var digits = magnitude < 100 ? 2 : magnitude < 1_000 ? 3 : magnitude < 10_000 ? 4 : 5
        if digits == 5 {
            var probe = magnitude / 100_000
            while probe > 0 { digits += 1; probe /= 10 }
        }
        var last = position + digits - 1
        repeat {
            base[last] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
            magnitude /= 10
            last -= 1
        } while magnitude > 0
        count = position + digits
    }

    func seconds(_ ns: Int64) {
        if ns < 0 { append(UInt8(ascii: "-")) }
        let magnitude = ns.magnitude
        integer(Int64(magnitude / 1_000_000_000))
        var fraction = magnitude % 1_000_000_000
        reserve(10)
        base[count] = UInt8(ascii: "."); count += 1
        if fraction == 0 { base[count] = UInt8(ascii: "0"); count += 1; return }
        var digits = 9
        while fraction % 10 == 0 { fraction /= 10; digits -= 1 }
        var position = count + digits - 1
        for _ in 0..<digits {
            base[position] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: fraction % 10)
            fraction /= 10
            position -= 1
        }
        count += digits
    }

    var array: [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }
}

/// Keys written at one depth, each as the whole text `key` writes after
/// its comma: a newline, the indent and `"name": `. Made once by
/// `JSONWriter.prepareKeys`; read by every thread that renders.
final class PreparedKeys: @unchecked Sendable {
    let depth: Int
    let names: [StaticString]
    private let storage: UnsafeMutablePointer<UInt8>
    private let starts: [Int]

    fileprivate init(_ names: [StaticString], depth: Int) {
        self.depth = depth
        self.names = names
        // The text `key` writes, by `key` itself.
        let texts = names.map { name -> [UInt8] in
            let text = ByteBuffer(capacity: 64)
            name.withUTF8Buffer { text.key($0, comma: false, indent: 2 * depth) }
            return text.array
        }
        var starts = [0]
        for text in texts { starts.append(starts.last! + text.count) }
        self.starts = starts
        storage = .allocate(capacity: max(1, starts.last!))
        for (index, text) in texts.enumerated() { (storage + starts[index]).initialize(from: text, count: text.count) }
    }

    deinit { storage.deallocate() }

    @inline(__always)
    func text(_ index: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: storage + starts[index], count: starts[index + 1] - starts[index])
    }
}

/// The batch writers and the renderer, handed to `concurrentPerform`: each
/// iteration touches only its own writer.
private struct UncheckedParts: @unchecked Sendable { let parts: UnsafeMutableBufferPointer<JSONWriter> }
private struct UncheckedRender: @unchecked Sendable { let render: (Int, inout JSONWriter) -> Void }

/// The text of doubles by bit pattern, in a direct-mapped table: a hit costs
/// a hash and three word copies instead of a shortest-round-trip conversion.
/// The text is exactly what the conversion wrote, so the output is the same.
final class DoubleTextCache {
    /// Bytes of the longest shortest-round-trip text of a finite double ("-2.2250738585072014e-308").
    static let longest = 24
    private static let slotBits = 12, stride = 32
    /// Key per slot; a NaN pattern marks an empty one (only finite values are kept).
    private let keys: UnsafeMutablePointer<UInt64>
    /// Per slot: the length, then the text.
    private let texts: UnsafeMutableRawPointer

    init() {
        keys = .allocate(capacity: 1 << Self.slotBits)
        keys.initialize(repeating: .max, count: 1 << Self.slotBits)
        texts = .allocate(byteCount: Self.stride << Self.slotBits, alignment: 8)
        texts.initializeMemory(as: UInt8.self, repeating: 0, count: Self.stride << Self.slotBits)
    }

    deinit {
        keys.deallocate()
        texts.deallocate()
    }

    @inline(__always)
    private static func slot(_ bits: UInt64) -> Int {
        Int(truncatingIfNeeded: ((bits ^ (bits >> 31)) &* 0x9E37_79B9_7F4A_7C15) >> UInt64(64 - slotBits))
    }

    /// Copies the text of `bits` to `target` (which has room for `longest`
    /// bytes) and returns its length; 0 when not kept.
    @inline(__always)
    func copy(_ bits: UInt64, to target: UnsafeMutablePointer<UInt8>) -> Int {
        let slot = Self.slot(bits)
        guard keys[slot] == bits else { return 0 }
        let entry = texts + slot * Self.stride, to = UnsafeMutableRawPointer(target)
        // The whole slot: bytes past the length are overwritten by what follows.
        for word in 0..<3 {
            to.storeBytes(of: entry.loadUnaligned(fromByteOffset: 1 + 8 * word, as: UInt64.self), toByteOffset: 8 * word, as: UInt64.self)
        }
        return Int(entry.load(as: UInt8.self))
    }

    func keep(_ bits: UInt64, _ text: UnsafeBufferPointer<UInt8>) {
        guard text.count > 0 && text.count <= Self.longest, let source = text.baseAddress else { return }
        let slot = Self.slot(bits), entry = texts + slot * Self.stride
        keys[slot] = bits
        entry.storeBytes(of: UInt8(text.count), as: UInt8.self)
        (entry + 1).copyMemory(from: source, byteCount: text.count)
    }
}
