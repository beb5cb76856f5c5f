import CHDF5
import CHDF5Guard

/// How a chunked dataset is compressed.
public struct Compression: Sendable, Equatable {
    /// zlib level, 0 (store) to 9 (smallest).
    public let deflateLevel: Int
    /// Byte shuffle before deflate; groups the high bytes of small integers.
    public let shuffle: Bool

    public static let none = Compression(uncheckedLevel: 0, shuffle: false)
    public static let standard = Compression(uncheckedLevel: 4, shuffle: true)
    /// Shuffle + deflate level 1: for outputs written once and read whole
    /// (`report --save`), where level 4's extra time buys about 3 % of size.
    public static let fast = Compression(uncheckedLevel: 1, shuffle: true)
    /// Deflate level 1 without shuffle: for arrays that repeat whole values
    /// (sample-and-hold curves), whose repeats shuffle would split apart.
    public static let fastUnshuffled = Compression(uncheckedLevel: 1, shuffle: false)

    /// - Throws: `HDF5Error` naming the allowed range when `deflateLevel` is outside 0...9.
    public init(deflateLevel: Int, shuffle: Bool = true) throws {
        guard (0...9).contains(deflateLevel) else {
            throw HDF5Error(function: "Compression", context: "deflate level \(deflateLevel)",
                            stack: ["the deflate level must be an integer from 0 to 9"])
        }
        self.init(uncheckedLevel: deflateLevel, shuffle: shuffle)
    }

    private init(uncheckedLevel: Int, shuffle: Bool) {
        self.deflateLevel = uncheckedLevel
        self.shuffle = shuffle
    }
}

/// Sizes of one dataset, for reports.
public struct DatasetStorage: Sendable {
    public let rows: Int
    /// Bytes the data takes uncompressed.
    public let logicalBytes: UInt64
    /// Bytes the data takes in the file.
    public let storedBytes: UInt64
    /// Whether the file stores integers (H5T_INTEGER); reading floats
    /// into integers would turn NaN into garbage.
    public var isInteger: Bool = true
    /// Rows per chunk, nil for a contiguous or compact dataset.
    public var chunkRows: Int? = nil
    /// Bytes of one element as the file stores it.
    public var elementBytes: Int = 0
    /// What one element is, as the file stores it.
    public var element: StoredElement = .other("unknown")
    /// Dimensions of the dataspace: 1 for a column, 0 for a scalar.
    public var rank: Int = 1

    /// Chunks the declared rows span. Each written chunk takes index and
    /// data bytes in the file, so a count far beyond the file size means a
    /// damaged extent, and reading it would visit every chunk.
    public var declaredChunks: UInt64 {
        guard let chunkRows, chunkRows > 0, rows > 0 else { return 0 }
        return (UInt64(rows) - 1) / UInt64(chunkRows) + 1
    }

    /// Bytes one chunk holds uncompressed, nil when not chunked. A reader
    /// inflates a chunk whole for any part of it.
    public var chunkBytes: UInt64? {
        guard let chunkRows else { return nil }
        let bytes = UInt64(chunkRows).multipliedReportingOverflow(by: UInt64(max(0, elementBytes)))
        return bytes.overflow ? .max : bytes.partialValue
    }
}

/// The class of a dataset's elements in the file, named as a reader's
/// error shows it ("int32", "float64", "string", "enum", "compound").
public enum StoredElement: Sendable, Equatable, CustomStringConvertible {
    case integer(bytes: Int, signed: Bool)
    case float(bytes: Int)
    case string
    /// Any other HDF5 class: enum, compound, array, opaque, bitfield, reference, variable-length sequence.
    case other(String)

    /// Whether the element is `kind` (byte order aside: HDF5 converts it exactly).
    public func matches(_ kind: ScalarKind) -> Bool { description == kind.rawValue }

    public var description: String {
        switch self {
        case .integer(let bytes, let signed): "\(signed ? "int" : "uint")\(bytes * 8)"
        case .float(let bytes): "float\(bytes * 8)"
        case .string: "string"
        case .other(let name): name
        }
    }

    init(_ type: hid_t) {
        switch H5Tget_class(type) {
        case H5T_INTEGER: self = .integer(bytes: H5Tget_size(type), signed: H5Tget_sign(type) == H5T_SGN_2)
        case H5T_FLOAT: self = .float(bytes: H5Tget_size(type))
        case H5T_STRING: self = .string
        case H5T_ENUM: self = .other("enum")
        case H5T_COMPOUND: self = .other("compound")
        case H5T_ARRAY: self = .other("array")
        case H5T_OPAQUE: self = .other("opaque")
        case H5T_BITFIELD: self = .other("bitfield")
        case H5T_REFERENCE: self = .other("reference")
        case H5T_VLEN: self = .other("variable-length sequence")
        case H5T_TIME: self = .other("time")
        default: self = .other("unknown")
        }
    }
}

/// A one-dimensional, chunked, extendible dataset of one scalar type.
///
/// Appends are buffered and written a whole chunk at a time, because writing
/// a partial compressed chunk and then rewriting it leaves the old copy as
/// dead space in the file. `flush()` writes a partial chunk when durability
/// matters more than size (the live recorder). A column given an
/// `OpenChunkWriter` writes that partial chunk whole and keeps its rows
/// until it fills (see there).
///
/// A deferred column (`Group.createColumn(deferred: true)`) makes its dataset
/// only when its first chunk fills or it is flushed: a table that ends
/// shorter than a chunk then gets a chunk of its own length, instead of a
/// whole chunk of padding that HDF5 fills, deflates and indexes.
public final class Column<Element: HDF5Scalar>: @unchecked Sendable {
    public let name: String
    let displayPath: String
    private(set) var handle: Handle
    let fileHandle: Handle
    /// Rows per chunk; a deferred column may lower it when it makes its dataset.
    @exclusivity(unchecked) public private(set) var chunkRows: Int
    /// Makes the dataset with the given rows per chunk; nil once it exists.
    private var create: ((Int) throws -> hid_t)?
    /// Rows already in the file (or queued for it in `pipeline`); with
    /// `openChunks`, the rows of full chunks.
    @exclusivity(unchecked) public private(set) var storedCount: Int
    @exclusivity(unchecked) @usableFromInline var pending: [Element] = []
    /// Where full chunks go to be compressed off this thread; nil: `H5Dwrite`.
    let pipeline: ChunkPipeline?
    /// Writes the chunk being filled whole; its rows stay in `pending`.
    let openChunks: OpenChunkWriter?
    /// Rows of `pending` the file holds already (with `openChunks`).
    private var pendingWritten = 0
    let compression: Compression

    init(id: hid_t, fileHandle: Handle, name: String, displayPath: String, chunkRows: Int, storedCount: Int,
         pipeline: ChunkPipeline? = nil, openChunks: OpenChunkWriter? = nil, compression: Compression = .none) {
        precondition(openChunks == nil || storedCount % chunkRows == 0, "an open chunk starts at a chunk boundary")
        self.handle = Handle(id, kind: "D", name: displayPath, file: fileHandle, closer: H5Dclose)
        self.fileHandle = fileHandle
        self.name = name
        self.displayPath = displayPath
        self.chunkRows = chunkRows
        self.storedCount = storedCount
        self.pipeline = pipeline
        self.openChunks = openChunks
        self.compression = compression
        pending.reserveCapacity(chunkRows)
        // Weak: a column being dropped on another thread while the file
        // flushes writes its own tail in deinit; an unowned read of it aborts.
        fileHandle.register(self) { [weak self] in try self?.flush() }
    }

    /// A column whose dataset `create` makes on the first write.
    convenience init(deferred create: @escaping (Int) throws -> hid_t, fileHandle: Handle, name: String, displayPath: String,
                     chunkRows: Int, pipeline: ChunkPipeline?, compression: Compression) {
        self.init(id: -1, fileHandle: fileHandle, name: name, displayPath: displayPath, chunkRows: chunkRows, storedCount: 0,
                  pipeline: pipeline, compression: compression)
        self.create = create
    }

    /// Makes a deferred column's dataset: chunks of `chunkRows` once a
    /// chunk has filled, otherwise of the rows there are (at least one).
    private func makeDataset() throws {
        guard let create else { return }
        let rows = pending.count >= chunkRows ? chunkRows : max(1, pending.count)
        let id = try create(rows)
        self.create = nil
        handle = Handle(id, kind: "D", name: displayPath, file: fileHandle, closer: H5Dclose)
        chunkRows = rows
    }

    /// Rows in the column, counting ones still buffered.
    public var count: Int { storedCount + pending.count }

    /// Appends one value. Inlinable so that callers in other modules get it
    /// specialized: unspecialized, the generic call cost more than parsing.
    @inlinable @inline(__always)
    public func append(_ value: Element) throws {
        pending.append(value)
        if (storedCount + pending.count) % chunkRows == 0 { try writePending() }
    }

    /// Appends values, writing every chunk that fills.
    @inlinable
    public func append<S: Sequence>(contentsOf values: S) throws where S.Element == Element {
        for value in values { try append(value) }
    }

    /// Appends `count` values, `value(0)` first, writing every chunk that
    /// fills: one capacity and chunk check per run up to a chunk's end, not
    /// per value (a batch of table rows copied field by field).
    @inlinable
    public func append(count: Int, _ value: (Int) -> Element) throws {
        try appendRuns(count: count) { run in pending.append(contentsOf: run.lazy.map(value)) }
    }

    /// Appends `values` a run at a time, each copied whole: called
    /// unspecialized (a table written whole, its element type generic), a
    /// value at a time went through the type's metadata for each.
    @inlinable
    public func append(contentsOf values: UnsafeBufferPointer<Element>) throws {
        try appendRuns(count: values.count) { run in pending.append(contentsOf: UnsafeBufferPointer(rebasing: values[run])) }
    }

    /// Calls `add` with each run of `count` new values' indices up to a
    /// chunk's end, and writes the chunk it fills.
    @inlinable
    func appendRuns(count: Int, _ add: (Range<Int>) -> Void) throws {
        var index = 0
        while index < count {
            let run = Swift.min(chunkRows - (storedCount + pending.count) % chunkRows, count - index)
            add(index..<index + run)
            index += run
            if (storedCount + pending.count) % chunkRows == 0 { try writePending() }
        }
    }

    /// Writes buffered rows to the file, even if they fill only part of a
    /// chunk, after every chunk queued in the pipeline.
    public func flush() throws {
        try writePending()
        try pipeline?.drain()
    }

    @usableFromInline
    func writePending() throws {
        // A dataset sized to its table takes the one H5Dwrite below: through
        // the pipeline, such short chunks read back as "inflate() failed".
        let sizedToTable = create != nil && pending.count < chunkRows
        try makeDataset()
        guard !pending.isEmpty else { return }
        if let openChunks {
            guard pending.count > pendingWritten else { return }
            try pending.withUnsafeBytes {
                try openChunks.write(handle, displayPath: displayPath, index: storedCount / chunkRows, chunkRows: chunkRows,
                                     elementSize: MemoryLayout<Element>.size, compression: compression, values: $0)
            }
            if pending.count == chunkRows {
                storedCount += chunkRows
                pending.removeAll(keepingCapacity: true)
                pendingWritten = 0
            } else {
                pendingWritten = pending.count
            }
            return
        }
        if let pipeline, !sizedToTable, pending.count == chunkRows, storedCount % chunkRows == 0, pipeline.isRunning {
            let full = pending
            pending = []
            pending.reserveCapacity(chunkRows)
            try pipeline.submit(ChunkJob(handle: handle, displayPath: displayPath, index: storedCount / chunkRows,
                                         chunkRows: chunkRows, elementSize: MemoryLayout<Element>.size,
                                         compression: compression, payload: full))
            storedCount += chunkRows
            return
        }
        // A partial chunk goes through H5Dwrite, after the chunks before it.
        try pipeline?.drain()
        try withHDF5 {
            let id = try handle.validID(displayPath)
            var newSize = hsize_t(storedCount + pending.count)
            try checkStatus(H5Dset_extent(id, &newSize), "H5Dset_extent", displayPath)
            let fileSpace = try checkID(H5Dget_space(id), "H5Dget_space", displayPath)
            defer { H5Sclose(fileSpace) }
            var start = hsize_t(storedCount)
            var rows = hsize_t(pending.count)
            try checkStatus(H5Sselect_hyperslab(fileSpace, H5S_SELECT_SET, &start, nil, &rows, nil),
                            "H5Sselect_hyperslab", displayPath)
            let memorySpace = try checkID(H5Screate_simple(1, &rows, nil), "H5Screate_simple", displayPath)
            defer { H5Sclose(memorySpace) }
            let status = pending.withUnsafeBufferPointer {
                H5Dwrite(id, Element.scalarKind.nativeType, memorySpace, fileSpace, CHDF5_P_DEFAULT(), $0.baseAddress)
            }
            try checkStatus(status, "H5Dwrite", displayPath)
        }
        storedCount += pending.count
        pending.removeAll(keepingCapacity: true)
    }

    /// Reads rows `range`, converting from the file's type to `Element`.
    /// Buffered rows not yet written are included.
    /// - Parameter cached: whether rows of the same chunks will be read
    ///   soon: a range shorter than a chunk then goes through HDF5's chunk
    ///   cache; without, its chunks are inflated here, as for longer ranges.
    /// The corresponding C function is `H5Dread`.
    public func read(_ range: Range<Int>, cached: Bool = true) throws -> [Element] {
        guard range.lowerBound >= 0, range.upperBound <= count else {
            throw HDF5Error(function: "H5Dread", context: displayPath,
                            stack: ["rows \(range.lowerBound)..<\(range.upperBound) are outside 0..<\(count)"])
        }
        var result = [Element](repeating: .zero, count: range.count)
        let fromFile = range.clamped(to: 0..<storedCount)
        if !fromFile.isEmpty {
            try result.withUnsafeMutableBufferPointer { buffer in
                try readStored(fromFile, into: UnsafeMutableRawPointer(buffer.baseAddress!), cached: cached)
            }
        }
        let fromBuffer = range.clamped(to: storedCount..<count)
        for index in fromBuffer { result[index - range.lowerBound] = pending[index - storedCount] }
        return result
    }

    /// Reads every row.
    public func readAll() throws -> [Element] { try read(0..<count) }

    /// Stored rows: a range of a chunk's rows or more, or any range not
    /// `cached`, reads its chunks as stored and inflates them with libdeflate
    /// (`BlockSource.fill`); a shorter one goes through `H5Dread` (the
    /// library inflates with zlib, under its lock, and keeps the chunk in its
    /// cache for the next read).
    private func readStored(_ range: Range<Int>, into destination: UnsafeMutableRawPointer, cached: Bool) throws {
        try pipeline?.drain()
        let layout = range.count >= chunkRows || !cached ? withHDF5 { rawLayout() } : nil
        var raw = RawChunk()
        let done = try fill(range, layout: layout, into: destination, decoder: ChunkDecoder(), raw: &raw)
        withHDF5 { counts += done }
    }

    /// Chunks `read` decoded itself, and its `H5Dread` calls (so far), under
    /// the HDF5 lock: for tests that the fast path is taken.
    public var readCounts: ChunkReads { withHDF5 { counts } }
    private var counts = ChunkReads()

    /// Re-reads the row count from the file: for SWMR readers following a writer.
    /// The corresponding C function is `H5Drefresh`.
    public func refresh() throws {
        try withHDF5 {
            let id = try handle.validID(displayPath)
            try checkStatus(H5Drefresh(id), "H5Drefresh", displayPath)
            storedCount = try datasetRows(id, displayPath)
        }
    }

    /// Uncompressed and stored sizes.
    public func storage() throws -> DatasetStorage {
        try pipeline?.drain()
        return try withHDF5 { try datasetStorage(try handle.validID(displayPath), displayPath) }
    }

    /// Writes what is buffered and closes the dataset.
    public func close() throws {
        guard handle.isOpen || create != nil && fileHandle.isOpen else { return }
        try flush()
        fileHandle.unregister(self)
        try handle.close()
    }

    deinit {
        // A column dropped without close() still writes its tail; errors
        // here have nowhere to go, so writers call close() explicitly.
        fileHandle.unregister(self)
        if (handle.isOpen || create != nil) && fileHandle.isOpen { try? writePending() }
    }
}

func datasetRows(_ id: hid_t, _ context: String) throws -> Int {
    let space = try checkID(H5Dget_space(id), "H5Dget_space", context)
    defer { H5Sclose(space) }
    let points = H5Sget_simple_extent_npoints(space)
    try checkStatus(points, "H5Sget_simple_extent_npoints", context)
    return Int(points)
}

func datasetStorage(_ id: hid_t, _ context: String) throws -> DatasetStorage {
    let rows = try datasetRows(id, context)
    let type = try checkID(H5Dget_type(id), "H5Dget_type", context)
    defer { H5Tclose(type) }
    let elementSize = H5Tget_size(type)
    // Multiplied wide: a damaged header may declare any number of rows.
    let logical = UInt64(rows).multipliedReportingOverflow(by: UInt64(elementSize))
    let space = try checkID(H5Dget_space(id), "H5Dget_space", context)
    defer { H5Sclose(space) }
    return DatasetStorage(rows: rows, logicalBytes: logical.overflow ? .max : logical.partialValue,
                          storedBytes: UInt64(H5Dget_storage_size(id)), isInteger: H5Tget_class(type) == H5T_INTEGER,
                          chunkRows: datasetChunkRows(id), elementBytes: elementSize, element: StoredElement(type),
                          rank: max(0, Int(H5Sget_simple_extent_ndims(space))))
}

/// Rows per chunk of a one-dimensional chunked dataset, nil otherwise.
func datasetChunkRows(_ id: hid_t) -> Int? {
    let dcpl = H5Dget_create_plist(id)
    guard dcpl >= 0 else { return nil }
    defer { H5Pclose(dcpl) }
    var chunk: hsize_t = 0
    guard H5Pget_layout(dcpl) == H5D_CHUNKED, H5Pget_chunk(dcpl, 1, &chunk) == 1, chunk > 0 else { return nil }
    return Int(clamping: chunk)
}

/// A dataset creation property list: chunks of `chunkRows` rows, and
/// shuffle and deflate as `compression` says. Close it with `H5Pclose`.
func chunkedCreationList(chunkRows: Int, compression: Compression, _ where_: String) throws -> hid_t {
    try chunkedCreationList(chunkShape: [hsize_t(chunkRows)], compression: compression, where_)
}

/// The same for chunks of any rank (`chunkShape`, one extent per dimension).
func chunkedCreationList(chunkShape: [hsize_t], compression: Compression, _ where_: String) throws -> hid_t {
    let dcpl = try checkID(H5Pcreate(CHDF5_P_DATASET_CREATE()), "H5Pcreate", where_)
    var done = false
    defer { if !done { H5Pclose(dcpl) } }
    var chunk = chunkShape
    try checkStatus(H5Pset_chunk(dcpl, Int32(chunk.count), &chunk), "H5Pset_chunk", where_)
    if compression.deflateLevel > 0 {
        guard H5Zfilter_avail(H5Z_FILTER_DEFLATE) > 0 else {
            throw HDF5Error(function: "H5Zfilter_avail", context: where_,
                            stack: ["this HDF5 library has no deflate filter; use compression level 0"])
        }
        if compression.shuffle {
            try checkStatus(H5Pset_shuffle(dcpl), "H5Pset_shuffle", where_)
        }
        try checkStatus(H5Pset_deflate(dcpl, UInt32(compression.deflateLevel)), "H5Pset_deflate", where_)
    }
    done = true
    return dcpl
}

extension Group {
    /// Creates an empty extendible column, chunked by `chunkRows` and
    /// compressed with `compression`.
    /// The corresponding C functions are `H5Pset_chunk`, `H5Pset_shuffle`,
    /// `H5Pset_deflate` and `H5Dcreate2`.
    /// - Parameters:
    ///   - attributes: written on the dataset as it is made.
    ///   - deferred: make the dataset on the first write, sized to the
    ///     table if it ends within its first chunk (see `Column`). Not for
    ///     SWMR writers, which cannot make datasets once SWMR starts.
    ///   - openChunks: write each partial chunk whole through it (a SWMR
    ///     writer's flushes); only for a compressed column, not deferred.
    public func createColumn<Element: HDF5Scalar>(_ name: String, of type: Element.Type = Element.self,
                                                  chunkRows: Int = 16384,
                                                  compression: Compression = .standard,
                                                  pipeline: ChunkPipeline? = nil,
                                                  openChunks: OpenChunkWriter? = nil,
                                                  attributes: [(String, AttributeValue)] = [],
                                                  deferred: Bool = false) throws -> Column<Element> {
        let where_ = childDisplay(name)
        guard chunkRows > 0 else {
            throw HDF5Error(function: "H5Pset_chunk", context: where_, stack: ["chunk rows must be positive"])
        }
        let create = { [handle, displayPath] (rows: Int) throws -> hid_t in
            try withHDF5 {
                var initial: hsize_t = 0
                var maximum = CHDF5_S_UNLIMITED()
                let space = try checkID(H5Screate_simple(1, &initial, &maximum), "H5Screate_simple", where_)
                defer { H5Sclose(space) }
                let dcpl = try chunkedCreationList(chunkRows: rows, compression: compression, where_)
                defer { H5Pclose(dcpl) }
                let id = try checkID(H5Dcreate2(try handle.validID(displayPath), name, Element.scalarKind.nativeType, space,
                                                CHDF5_P_DEFAULT(), dcpl, CHDF5_P_DEFAULT()), "H5Dcreate2", where_)
                do {
                    for (attribute, value) in attributes { try writeAttribute(on: id, attribute, value, context: where_) }
                } catch {
                    H5Dclose(id)
                    throw error
                }
                return id
            }
        }
        let openChunks = compression.deflateLevel > 0 ? openChunks : nil
        precondition(openChunks == nil || !deferred && pipeline == nil, "open chunks are for a SWMR writer's columns")
        if deferred {
            return Column(deferred: create, fileHandle: fileHandle, name: name, displayPath: where_, chunkRows: chunkRows,
                          pipeline: pipeline, compression: compression)
        }
        return Column(id: try create(chunkRows), fileHandle: fileHandle, name: name, displayPath: where_, chunkRows: chunkRows,
                      storedCount: 0, pipeline: pipeline, openChunks: openChunks, compression: compression)
    }

    /// Opens a one-dimensional dataset as a column of `Element`, converting on read.
    public func openColumn<Element: HDF5Scalar>(_ name: String, of type: Element.Type = Element.self) throws -> Column<Element> {
        let where_ = childDisplay(name)
        return try withHDF5 {
            let id = try checkID(H5Dopen2(try handle.validID(displayPath), name, CHDF5_P_DEFAULT()), "H5Dopen2", where_)
            var ok = false
            defer { if !ok { H5Dclose(id) } }
            let space = try checkID(H5Dget_space(id), "H5Dget_space", where_)
            defer { H5Sclose(space) }
            let rank = H5Sget_simple_extent_ndims(space)
            guard rank == 1 else {
                throw HDF5Error(function: "H5Dopen2", context: where_, stack: ["expected a one-dimensional dataset, found rank \(rank)"])
            }
            let type = try checkID(H5Dget_type(id), "H5Dget_type", where_)
            defer { H5Tclose(type) }
            let typeClass = H5Tget_class(type)
            guard typeClass == H5T_INTEGER || typeClass == H5T_FLOAT else {
                throw HDF5Error(function: "H5Dopen2", context: where_, stack: ["expected a numeric dataset"])
            }
            let rows = try datasetRows(id, where_)
            let chunkRows = datasetChunkRows(id) ?? 16384
            ok = true
            return Column(id: id, fileHandle: fileHandle, name: name, displayPath: where_, chunkRows: chunkRows, storedCount: rows)
        }
    }

    /// Sizes of the dataset `name`.
    public func storage(of name: String) throws -> DatasetStorage {
        let where_ = childDisplay(name)
        return try withHDF5 {
            let id = try checkID(H5Dopen2(try handle.validID(displayPath), name, CHDF5_P_DEFAULT()), "H5Dopen2", where_)
            defer { H5Dclose(id) }
            return try datasetStorage(id, where_)
        }
    }

    /// Writes a small fixed-size array as a contiguous dataset.
    public func writeArray<Element: HDF5Scalar>(_ name: String, _ values: [Element]) throws {
        let where_ = childDisplay(name)
        try withHDF5 {
            var count = hsize_t(values.count)
            let space = try checkID(H5Screate_simple(1, &count, nil), "H5Screate_simple", where_)
            defer { H5Sclose(space) }
            let id = try checkID(H5Dcreate2(try handle.validID(displayPath), name, Element.scalarKind.nativeType, space,
                                            CHDF5_P_DEFAULT(), CHDF5_P_DEFAULT(), CHDF5_P_DEFAULT()), "H5Dcreate2", where_)
            defer { H5Dclose(id) }
            if !values.isEmpty {
                let status = values.withUnsafeBufferPointer {
                    H5Dwrite(id, Element.scalarKind.nativeType, CHDF5_S_ALL(), CHDF5_S_ALL(), CHDF5_P_DEFAULT(), $0.baseAddress)
                }
                try checkStatus(status, "H5Dwrite", where_)
            }
        }
    }

    /// Reads a whole one-dimensional numeric dataset.
    public func readArray<Element: HDF5Scalar>(_ name: String, of type: Element.Type = Element.self) throws -> [Element] {
        let column: Column<Element> = try openColumn(name)
        defer { try? column.close() }
        return try column.readAll()
    }

    /// Writes an array of variable-length UTF-8 strings.
    public func writeStrings(_ name: String, _ values: [String]) throws {
        try writeStringDataset(name, values, scalar: false)
    }

    /// Reads an array of strings, variable- or fixed-length.
    public func readStrings(_ name: String) throws -> [String] {
        let where_ = childDisplay(name)
        return try withHDF5 {
            let id = try checkID(H5Dopen2(try handle.validID(displayPath), name, CHDF5_P_DEFAULT()), "H5Dopen2", where_)
            defer { H5Dclose(id) }
            let count = try datasetRows(id, where_)
            let fileType = try checkID(H5Dget_type(id), "H5Dget_type", where_)
            defer { H5Tclose(fileType) }
            guard H5Tget_class(fileType) == H5T_STRING else {
                throw HDF5Error(function: "H5Dread", context: where_, stack: ["expected a string dataset"])
            }
            if count == 0 { return [] }
            if H5Tis_variable_str(fileType) > 0 {
                let memType = try makeStringType()
                defer { H5Tclose(memType) }
                var pointers = [UnsafeMutablePointer<CChar>?](repeating: nil, count: count)
                let fault = HDF5Error(function: "H5Dread", context: where_, stack: [damagedHeapCause])
                let status = guardedRead(fault) { CHDF5Guard_Dread(id, memType, CHDF5_S_ALL(), CHDF5_S_ALL(), CHDF5_P_DEFAULT(), &pointers, $0) }
                // HDF5 faulted on a damaged global heap (see CHDF5Guard): its
                // state is now undefined, so no further HDF5 call may run.
                if status == -2 { throw fault }
                try checkStatus(status, "H5Dread", where_)
                let strings = pointers.map { $0.map { String(cString: $0) } ?? "" }
                let space = try checkID(H5Dget_space(id), "H5Dget_space", where_)
                defer { H5Sclose(space) }
                pointers.withUnsafeMutableBufferPointer { _ = H5Dvlen_reclaim(memType, space, CHDF5_P_DEFAULT(), $0.baseAddress) }
                return strings
            }
            let size = H5Tget_size(fileType)
            var bytes = [UInt8](repeating: 0, count: size * count)
            // Their chunks as stored, inflated by libdeflate where the layout allows (`BlockSource.fill`).
            let rows = FixedStringRows(dataset: id, type: fileType, size: size, displayPath: where_)
            var raw = RawChunk()
            try bytes.withUnsafeMutableBytes { buffer in
                _ = try rows.fill(0..<count, layout: rows.rawLayout(), into: buffer.baseAddress!, decoder: ChunkDecoder(), raw: &raw)
            }
            return (0..<count).map { index in
                String(decoding: bytes[(index * size)..<((index + 1) * size)].prefix { $0 != 0 }, as: UTF8.self)
            }
        }
    }
}
