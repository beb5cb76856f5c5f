import Foundation

/// The bench's floor for `import` (`make bench`, Tests/bench/README.md,
/// "Import's floor"): the evemu text read and split into lines, and its event
/// lines parsed, as import does, with nothing built, decoded or written.
public enum ImportFloor {
    /// The event lines `path` holds, and a sum of their fields, so that the
    /// parse cannot be left out.
    public static func parseEvemu(path: String) throws -> (events: Int, checksum: Int64) {
        var reader = LineReader(source: try ByteSource(path: path))
        var events = 0, checksum: Int64 = 0
        while true {
            let event: InputEvent
            if let parsed = reader.nextParsed(Evemu.fastEvent) {
                event = parsed
            } else {
                guard let line = try reader.next() else { break }
                guard let parsed = line.withUnsafeBufferPointer(Evemu.fastEvent) else { continue }
                event = parsed
            }
            events += 1
            checksum &+= event.timeNs &+ Int64(event.value) &+ Int64(event.code)
        }
        return (events, checksum)
    }
}
