import Foundation
import XCTest
import CHDF5
@testable import HDF5

final class HDF5Tests: XCTestCase {
    var directory: URL!

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory(self, prefix: "hdf5tests")
    }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    private func roundTrip<T: HDF5Scalar & Equatable>(_ values: [T], chunkRows: Int = 7, file name: String) throws {
        let filePath = path(name)
        do {
            let file = try File.create(filePath)
            let column: Column<T> = try file.root.createColumn("data", chunkRows: chunkRows)
            try column.append(contentsOf: values)
            XCTAssertEqual(column.count, values.count)
            try column.close()
            try file.close()
        }
        let file = try File.open(filePath)
        let column: Column<T> = try file.root.openColumn("data")
        XCTAssertEqual(column.count, values.count)
        XCTAssertEqual(try column.readAll(), values)
        if values.count > 5 {
            XCTAssertEqual(try column.read(2..<5), Array(values[2..<5]))
        }
        try file.close()
    }

    /// A column dropped on one thread while another flushes the file: the
    /// flush must skip it, not touch it (an `unowned` flusher aborted the
    /// process with "Attempted to read an unowned reference").
    func testColumnsDroppedWhileAnotherThreadFlushesTheFile() throws {
        let file = try File.create(path("race.h5"))
        let readers = 200
        for index in 0..<readers {
            let column: Column<Int32> = try file.root.createColumn("c\(index)", chunkRows: 4)
            try column.append(contentsOf: [1, 2, 3])
        }
        try file.flush()
        final class Flag: @unchecked Sendable { let lock = NSLock(); var done = false }
        let flag = Flag()
        let flusher = Thread {
            while !flag.lock.withLock({ flag.done }) { try? file.flush() }
        }
        flusher.start()
        for round in 0..<40 {
            for index in 0..<readers {
                let column: Column<Int32> = try file.root.openColumn("c\(index)")
                XCTAssertEqual(column.count, 3, "round \(round), column \(index)")
            }
        }
        flag.lock.withLock { flag.done = true }
        while !flusher.isFinished { usleep(1000) }
        try file.close()
    }

    /// copyValues: shuffle+deflate and unfiltered chunks go across as stored
    /// (same bytes, same chunking), a chunk never written comes back as the
    /// fill value, and an empty column stays empty.
    func testCopyValuesKeepsStoredChunksAndValues() throws {
        let source = try File.create(path("copy-source.h5"))
        let values = (0..<10).map { Int32($0 * 1_000 - 3_000) }
        for (name, compression) in [("deflated", Compression.standard), ("plain", Compression.none)] {
            let column: Column<Int32> = try source.root.createColumn(name, chunkRows: 4, compression: compression)
            try column.append(contentsOf: values)
            try column.close()
        }
        let empty: Column<Int64> = try source.root.createColumn("empty", chunkRows: 8)
        try empty.close()
        // Rows 4..<12 grown but never written: chunk 1 is not stored.
        let sparse: Column<Int16> = try source.root.createColumn("sparse", chunkRows: 4)
        try sparse.append(contentsOf: [7, 8, 9, 10])
        try sparse.close()
        let root = try source.root
        try withHDF5 {
            let id = H5Dopen2(try root.handle.validID("/"), "sparse", CHDF5_P_DEFAULT())
            defer { H5Dclose(id) }
            var rows: hsize_t = 12
            XCTAssertGreaterThanOrEqual(id, 0, "H5Dopen2")
            XCTAssertGreaterThanOrEqual(H5Dset_extent(id, &rows), 0)
        }
        try source.flush()
        let copy = try File.create(path("copy-target.h5"))
        for name in ["deflated", "plain", "empty", "sparse"] {
            try source.root.copyValues(name, to: copy.root, chunkRows: 16, compression: .standard)
        }
        try copy.close()
        let reopened = try File.open(path("copy-target.h5"))
        for name in ["deflated", "plain"] {
            let column: Column<Int32> = try reopened.root.openColumn(name)
            XCTAssertEqual(try column.readAll(), values, name)
            XCTAssertEqual(try reopened.root.storage(of: name).chunkRows, 4, "\(name): the source's chunking")
            XCTAssertEqual(try reopened.root.storage(of: name).storedBytes, try source.root.storage(of: name).storedBytes, name)
        }
        XCTAssertEqual(try (reopened.root.openColumn("empty") as Column<Int64>).readAll(), [])
        XCTAssertEqual(try (reopened.root.openColumn("sparse") as Column<Int16>).readAll(), [7, 8, 9, 10, 0, 0, 0, 0, 0, 0, 0, 0])
        try reopened.close()
        try source.close()
    }

    func testEveryScalarTypeRoundTrips() throws {
        try roundTrip([Int8.min, -1, 0, 1, Int8.max], file: "i8.h5")
        try roundTrip([Int16.min, -1, 0, 1, Int16.max], file: "i16.h5")
        try roundTrip((0..<50).map { Int32($0 * 1_000_003 - 7) } + [Int32.min, Int32.max], file: "i32.h5")
        try roundTrip([Int64.min, -1, 0, 1_000_000_000_000, Int64.max], file: "i64.h5")
        try roundTrip([UInt8.min, 7, UInt8.max], file: "u8.h5")
        try roundTrip([UInt16.min, 0x14a, UInt16.max], file: "u16.h5")
        try roundTrip([UInt32.min, UInt32.max], file: "u32.h5")
        try roundTrip([UInt64.min, UInt64.max], file: "u64.h5")
        try roundTrip([Float(0), -1.5, .greatestFiniteMagnitude, .leastNonzeroMagnitude], file: "f32.h5")
        try roundTrip([Double(0), -1.5, .pi, 1e300], file: "f64.h5")
    }

    func testAppendsAcrossChunkBoundariesWithPartialFlushes() throws {
        let filePath = path("chunks.h5")
        let values = (0..<1000).map { Int64($0 * $0) }
        do {
            let file = try File.create(filePath)
            let column: Column<Int64> = try file.root.createColumn("squares", chunkRows: 64)
            for (index, value) in values.enumerated() {
                try column.append(value)
                // A flush in the middle of a chunk must not lose or repeat rows.
                if index == 100 || index == 101 || index == 500 { try column.flush() }
            }
            // Rows still in the buffer are readable before they reach the file.
            XCTAssertLessThan(column.storedCount, values.count)
            XCTAssertEqual(try column.read(990..<1000), Array(values[990..<1000]))
            try column.close()
            try file.close()
        }
        let file = try File.open(filePath)
        let column: Column<Int64> = try file.root.openColumn("squares")
        XCTAssertEqual(column.chunkRows, 64)
        XCTAssertEqual(try column.readAll(), values)
        XCTAssertEqual(try column.read(60..<70), Array(values[60..<70]))
        XCTAssertThrowsError(try column.read(999..<1001))
    }

    /// Runs of values appended whole fill each chunk to its end and go on
    /// in the next: runs shorter than, as long as and longer than a chunk,
    /// after a flush mid-chunk too; and a whole array written at once.
    func testRunsOfValuesAppendAcrossChunkBoundaries() throws {
        let filePath = path("runs.h5")
        let values = (0..<1000).map { Int32($0 * 7 - 3000) }
        do {
            let file = try File.create(filePath)
            let column: Column<Int32> = try file.root.createColumn("runs", chunkRows: 64)
            var start = 0
            for (index, run) in [1, 63, 64, 65, 1, 200, 128, 3].enumerated() {
                try values.withUnsafeBufferPointer { try column.append(contentsOf: UnsafeBufferPointer(rebasing: $0[start..<start + run])) }
                start += run
                if index == 4 { try column.flush() }
            }
            try values.withUnsafeBufferPointer { try column.append(contentsOf: UnsafeBufferPointer(rebasing: $0[start...])) }
            try column.close()
            try file.root.writeCompressedArray("whole", values, chunkRows: 64)
            try file.close()
        }
        let file = try File.open(filePath)
        let column: Column<Int32> = try file.root.openColumn("runs")
        XCTAssertEqual(try column.readAll(), values)
        let whole: Column<Int32> = try file.root.openColumn("whole")
        XCTAssertEqual(whole.chunkRows, 64)
        XCTAssertEqual(try whole.readAll(), values)
    }

    func testReopenForAppend() throws {
        let filePath = path("reopen.h5")
        do {
            let file = try File.create(filePath)
            let column: Column<Int32> = try file.root.createColumn("values", chunkRows: 4)
            try column.append(contentsOf: [1, 2, 3, 4, 5])
            XCTAssertEqual(column.storedCount, 4)
            // Closing the file first must still write the column's buffered tail.
            try file.close()
        }
        let file = try File.open(filePath, mode: .readWrite)
        let column: Column<Int32> = try file.root.openColumn("values")
        XCTAssertEqual(try column.readAll(), [1, 2, 3, 4, 5])
        try column.append(contentsOf: [6, 7])
        try column.close()
        XCTAssertEqual(try file.root.readArray("values", of: Int32.self).suffix(2), [6, 7])
    }

    func testCompressionShrinksRepetitiveData() throws {
        let filePath = path("compressed.h5")
        let file = try File.create(filePath)
        let root = try file.root
        let compressed: Column<Int32> = try root.createColumn("compressed", chunkRows: 4096, compression: .standard)
        let plain: Column<Int32> = try root.createColumn("plain", chunkRows: 4096, compression: .none)
        let values = (0..<20000).map { Int32($0 % 50) }
        try compressed.append(contentsOf: values)
        try plain.append(contentsOf: values)
        try compressed.close()
        try plain.close()
        let compressedStorage = try root.storage(of: "compressed")
        let plainStorage = try root.storage(of: "plain")
        XCTAssertEqual(compressedStorage.logicalBytes, 80000)
        XCTAssertLessThan(compressedStorage.storedBytes * 10, plainStorage.storedBytes)
        XCTAssertThrowsError(try Compression(deflateLevel: 10)) { error in
            XCTAssertTrue("\(error)".contains("from 0 to 9"), "\(error)")
        }
    }

    /// A group with a dimension-only scale on rows, shared by a subgroup's
    /// column and a matrix, and a coordinate scale on the matrix's columns.
    private func writeScaledGroup(_ root: Group) throws {
        let group = try root.createGroup("g")
        try group.createGroup("table").writeArray("a", [Int32](repeating: 1, count: 3))
        try group.writeMatrix("m", [Float](repeating: 0, count: 6), rows: 3, columns: 2)
        try group.writeArray("x", [0.0, 0.5])
        try group.makeCoordinateScale("x")
        try group.createDimensionScale("row", rows: 3)
        try group.attachScale("row", to: ["table/a", "m"])
        try group.attachScale("x", to: ["m"], axis: 1)
    }

    func testScalesAttachAcrossSubgroupsAndSurviveACopyIntoAnotherFile() throws {
        let source = try File.create(path("scales.h5"))
        try writeScaledGroup(try source.root)
        let expected = [Group.ScaleAttachment(dataset: "m", axis: 0, scale: "row"), Group.ScaleAttachment(dataset: "m", axis: 1, scale: "x"),
                        Group.ScaleAttachment(dataset: "table/a", axis: 0, scale: "row")]
        let group = try source.root.openGroup("g")
        XCTAssertEqual(try group.scaleAttachments(), expected)
        XCTAssertTrue(try group.isDimensionScale("x"))
        XCTAssertTrue(try group.isDimensionScale("row"))
        XCTAssertFalse(try group.isDimensionScale("m"))

        let plain = try File.create(path("plain.h5")), kept = try File.create(path("kept.h5"))
        try source.root.copy("g", to: try plain.root)
        try source.root.copyKeepingScales("g", to: try kept.root, as: "h")
        // HDF5's own copy leaves the references dangling: the scales cannot be followed.
        XCTAssertThrowsError(try plain.root.openGroup("g").scaleAttachments())
        let copy = try kept.root.openGroup("h")
        XCTAssertEqual(try copy.scaleAttachments(), expected)
        XCTAssertEqual(try copy.readArray("x", of: Double.self), [0.0, 0.5])
        XCTAssertTrue(try copy.isDimensionScale("x"))
        for file in [source, plain, kept] { try file.close() }
    }

    func testAttributesRoundTrip() throws {
        let filePath = path("attrs.h5")
        do {
            let file = try File.create(filePath)
            let group = try file.root.createGroup("g")
            try group.setAttribute("text", .string("Wacom ISD-V4 Pen ✓"))
            try group.setAttribute("number", .int(-42))
            try group.setAttribute("real", .double(0.6))
            try group.setAttribute("ids", .ints([3, 0x56a, 0x4200, 0x110]))
            try group.setAttribute("names", .strings(["a", "bc"]))
            try group.setAttribute("number", .int(7))   // replaces
            try group.writeStrings("labels", ["ABS_X", "ABS_MT_PRESSURE"])
            try group.writeArray("codes", [UInt16(0), 0x3a])
            try file.close()
        }
        let file = try File.open(filePath)
        let group = try file.root.openGroup("g")
        XCTAssertEqual(try group.attribute("text"), .string("Wacom ISD-V4 Pen ✓"))
        XCTAssertEqual(try group.attribute("number"), .int(7))
        XCTAssertEqual(try group.attribute("real"), .double(0.6))
        XCTAssertEqual(try group.attribute("ids"), .ints([3, 0x56a, 0x4200, 0x110]))
        XCTAssertEqual(try group.attribute("names"), .strings(["a", "bc"]))
        XCTAssertNil(try group.attribute("missing"))
        XCTAssertEqual(try group.attributeNames().sorted(), ["ids", "names", "number", "real", "text"])
        XCTAssertEqual(try group.readStrings("labels"), ["ABS_X", "ABS_MT_PRESSURE"])
        XCTAssertEqual(try group.readArray("codes", of: Int32.self), [0, 0x3a])
        XCTAssertEqual(try file.root.memberNames(), ["g"])
        XCTAssertTrue(try file.root.contains("g"))
        XCTAssertFalse(try file.root.contains("h"))
    }

    /// A string column whose texts repeat, among them texts Swift calls equal
    /// (canonically equivalent) whose bytes differ: each row reads back with
    /// its own bytes, in a dataset and in an attribute.
    func testRepeatedStringsKeepEachRowsOwnBytes() throws {
        let filePath = path("strings.h5")
        let composed = "caf\u{e9}", decomposed = "cafe\u{301}"
        XCTAssertEqual(composed, decomposed)
        let values = (0..<1_000).map { ["tap", "peek-press", composed, decomposed, ""][$0 % 5] }
        do {
            let file = try File.create(filePath)
            try file.root.writeStrings("labels", values)
            try file.root.setAttribute("names", .strings([decomposed, composed, decomposed]))
            try file.close()
        }
        let file = try File.open(filePath)
        defer { try? file.close() }
        let read = try file.root.readStrings("labels")
        XCTAssertEqual(read.count, values.count)
        XCTAssertEqual(read.map { Array($0.utf8) }, values.map { Array($0.utf8) })
        guard case .strings(let names)? = try file.root.attribute("names") else { return XCTFail("no names attribute") }
        XCTAssertEqual(names.map { Array($0.utf8) }, [decomposed, composed, decomposed].map { Array($0.utf8) })
    }

    func testErrorsCarryHDF5StackAndPath() throws {
        let missing = path("missing.h5")
        XCTAssertThrowsError(try File.open(missing)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("H5Fopen"), text)
            XCTAssertTrue(text.contains(missing), text)
            XCTAssertTrue(text.contains("unable to open file"), text)
        }
        let notHDF5 = path("plain.txt")
        try "not hdf5".write(toFile: notHDF5, atomically: true, encoding: .utf8)
        XCTAssertFalse(try File.isHDF5(notHDF5))
        XCTAssertThrowsError(try File.open(notHDF5))
    }

    func testALockHeldByAnotherProcessIsClassifiedAsLocked() throws {
        let filePath = path("locked.h5")
        try File.create(filePath).close()
        guard let flock = ["/usr/bin/flock", "/bin/flock"].first(where: FileManager.default.isExecutableFile) else {
            throw XCTSkip("flock(1) from util-linux is not installed")
        }
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: flock)
        holder.arguments = ["--exclusive", "--no-fork", filePath, "sleep", "30"]
        try holder.run()
        defer { kill(holder.processIdentifier, SIGKILL); holder.waitUntilExit() }
        Thread.sleep(forTimeInterval: 0.3)
        XCTAssertThrowsError(try File.open(filePath, mode: .readWrite)) { error in
            XCTAssertEqual((error as? HDF5Error)?.kind, .locked, "\(error)")
            XCTAssertEqual((error as? HDF5Error)?.file, filePath)
        }
    }

    func testMissingFileIsClassifiedByErrno() throws {
        XCTAssertThrowsError(try File.open(path("absent.h5"))) { error in
            XCTAssertEqual((error as? HDF5Error)?.kind, .notFound, "\(error)")
            XCTAssertEqual((error as? HDF5Error)?.errno, ENOENT)
        }
    }

    func testClosedFileIsAnErrorNotACrash() throws {
        let file = try File.create(path("closed.h5"))
        let group = try file.root.createGroup("g")
        try group.close()
        XCTAssertThrowsError(try group.setAttribute("x", .int(1))) { error in
            XCTAssertTrue("\(error)".contains("already closed"), "\(error)")
        }
        try file.close()
        XCTAssertThrowsError(try file.flush())
        // Closing twice is harmless: no error, nothing else closed, the file intact.
        let other = try File.create(path("other.h5"))
        let kept = try other.root.createGroup("kept")
        try file.close()
        try kept.setAttribute("x", .int(1))
        try other.close()
        XCTAssertEqual(try File.open(path("other.h5")).root.openGroup("kept").attribute("x"), .int(1))
        XCTAssertEqual(try File.open(path("closed.h5")).root.memberNames(), ["g"])
    }

    func testObjectsOfAClosedFileAreVoidAndDroppingThemHarmsNoOtherFile() throws {
        let first = try File.create(path("first.h5"))
        var staleGroup: Group? = try first.root.createGroup("g")
        var staleColumn: Column<Int32>? = try first.root.createColumn("c", chunkRows: 4)
        try staleColumn?.append(contentsOf: [1, 2, 3])
        try first.close()
        XCTAssertThrowsError(try staleGroup?.setAttribute("x", .int(1))) { error in
            XCTAssertTrue("\(error)".contains("its file was already closed"), "\(error)")
        }
        let second = try File.create(path("second.h5"))
        let live = try second.root.createGroup("live")
        let liveColumn: Column<Int32> = try second.root.createColumn("c", chunkRows: 4)
        // Dropping the stale objects must not close ids the second file now uses.
        staleGroup = nil
        staleColumn = nil
        try live.setAttribute("still", .string("open"))
        try liveColumn.append(contentsOf: [7, 8, 9, 10, 11])
        try second.close()
        let reread = try File.open(path("second.h5"))
        XCTAssertEqual(try reread.root.openGroup("live").attribute("still"), .string("open"))
        XCTAssertEqual(try reread.root.readArray("c", of: Int32.self), [7, 8, 9, 10, 11])
        let firstAgain = try File.open(path("first.h5"))
        XCTAssertEqual(try firstAgain.root.readArray("c", of: Int32.self), [1, 2, 3], "the file's close wrote the buffered rows")
    }

    func testSWMRWriterIsReadableWhileOpen() throws {
        let filePath = path("swmr.h5")
        let writer = try File.create(filePath, latestFormat: true)
        let column: Column<Int64> = try writer.root.createColumn("t", chunkRows: 8)
        try writer.startSWMRWrite()
        try column.append(contentsOf: (0..<20).map(Int64.init))
        try column.flush()
        try writer.sync()
        let reader = try File.open(filePath, mode: .swmrRead)
        let seen: Column<Int64> = try reader.root.openColumn("t")
        XCTAssertEqual(try seen.readAll(), (0..<20).map(Int64.init))
        try column.append(contentsOf: (20..<30).map(Int64.init))
        try column.flush()
        try writer.flush()
        try seen.refresh()
        XCTAssertEqual(seen.count, 30)
        try reader.close()
        try column.close()
        try writer.close()
    }

    /// A SWMR writer's chunk still filling is written whole at each flush,
    /// deflated at level 1; once full, it is written once more at the file's
    /// level. A SWMR reader sees every row throughout.
    func testOpenChunksAreDeflatedCheaplyUntilFull() throws {
        let filePath = path("open-chunks.h5")
        let writer = try File.create(filePath, latestFormat: true)
        let column: Column<Int64> = try writer.root.createColumn("t", chunkRows: 64, compression: .standard,
                                                                 openChunks: OpenChunkWriter())
        try writer.startSWMRWrite()
        // The zlib header's second byte gives the level: 0x01 fastest (level 0 or 1), 0x5e levels 2 to 5.
        func levelByte(_ index: Int) throws -> UInt8 {
            try withHDF5 {
                var raw = RawChunk()
                let layout = RawChunkLayout(chunkRows: 64, elementSize: 8, shuffleStage: 0, deflateStage: 1)
                guard raw.read(dataset: try column.handle.validID(column.displayPath), index: index, layout: layout) else { return 0 }
                XCTAssertEqual(raw.filterMask, 0, "shuffled and deflated")
                return raw.bytes[1]
            }
        }
        let values = (0..<100).map { Int64($0 * 1_000_003) }
        try column.append(contentsOf: values[0..<40])
        try column.flush()
        try writer.sync()
        let reader = try File.open(filePath, mode: .swmrRead)
        let seen: Column<Int64> = try reader.root.openColumn("t")
        XCTAssertEqual(try seen.readAll(), Array(values[0..<40]))
        XCTAssertEqual(try levelByte(0), 0x01)
        // Nothing new: nothing rewritten.
        try column.flush()
        try column.append(contentsOf: values[40..<100])
        try column.flush()
        try writer.sync()
        try seen.refresh()
        XCTAssertEqual(seen.count, 100)
        XCTAssertEqual(try seen.readAll(), values)
        XCTAssertEqual(try levelByte(0), 0x5e, "the full chunk at the file's level 4")
        XCTAssertEqual(try levelByte(1), 0x01)
        XCTAssertEqual(column.storedCount, 64)
        XCTAssertEqual(try column.read(60..<70), Array(values[60..<70]))
        try reader.close()
        try column.close()
        try writer.close()
        let closed = try File.open(filePath)
        XCTAssertEqual(try closed.root.readArray("t", of: Int64.self), values)
    }

    /// A live SWMR writer's file is marked in its superblock (the flags a
    /// killed writer leaves too); a closed one, a default-format file and a
    /// file that is not HDF5 are not. TraceReader relies on this to read a
    /// live file that is, for a moment, shorter than its superblock's end.
    func testSuperblockMarksAWriterThatHasTheFileOpen() throws {
        let live = path("live.h5")
        let file = try File.create(live, latestFormat: true)
        let column: Column<Int32> = try file.root.createColumn("v", chunkRows: 16, compression: .standard)
        try file.startSWMRWrite()
        try column.append(contentsOf: [1, 2, 3])
        try file.flush()
        XCTAssertTrue(File.superblockMarksWriter(live))
        try column.close()
        try file.close()
        XCTAssertFalse(File.superblockMarksWriter(live))
        let plain = path("plain.h5")
        try File.create(plain).close()
        XCTAssertFalse(File.superblockMarksWriter(plain))
        let text = path("text.h5")
        try Data("not HDF5 at all, but long enough to be read".utf8).write(to: URL(fileURLWithPath: text))
        XCTAssertFalse(File.superblockMarksWriter(text))
        XCTAssertFalse(File.superblockMarksWriter(path("missing.h5")))
    }
}
