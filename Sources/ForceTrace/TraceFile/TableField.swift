import HDF5

/// A column of a table bound to the field of the table's row type that it
/// holds (`Sample`, `InputEvent`, `Contact`, `Marker`, `LabelRow`). The
/// writer appends (or, for labels, writes whole) and the reader fills rows
/// from every entry of a table's list of these (`TraceSchema.Samples.fields`,
/// `.Events.fields`, ...), so a new column is one entry there and one field
/// of the row type.
public struct TableField<Row>: @unchecked Sendable {  // key paths and closures are immutable
    public let schema: ColumnSchema
    /// Files of this format version all have it. A column added within a
    /// version is not: the reader skips it where a file lacks it.
    public let isRequired: Bool
    /// Makes the column in a new table group (rows per chunk given); what
    /// appends rows to it.
    let create: (Group, ColumnLayout, Int) throws -> RowSink<Row>
    /// Writes a short table's column whole (labels).
    let write: (Group, UnsafeBufferPointer<Row>) throws -> Void
    /// Opens the column for the block reader, with its rows.
    let open: (Group) throws -> (column: BlockColumn, rows: Int)
    /// Opens the column for reading ranges of it into rows; nil for a field
    /// that cannot be set (a computed one): written, not read back.
    let openSource: ((Group) throws -> RowSource<Row>)?

    /// A field copied from its byte offset where it is stored (no key-path
    /// lookup per row), through its key path otherwise; read back into rows
    /// only if it can be set.
    public init<Element>(_ column: TypedColumn<Element>, _ field: KeyPath<Row, Element>, isRequired: Bool = true) {
        let stride = MemoryLayout<Row>.stride
        guard let offset = MemoryLayout<Row>.offset(of: field) else {
            self.init(column, isRequired: isRequired, append: { target, rows in
                for row in rows { try target.append(row[keyPath: field]) }
            }, values: { rows in rows.map { $0[keyPath: field] } }, fill: (field as? WritableKeyPath<Row, Element>).map { writable in
                { rows, values in for index in values.indices { rows[index][keyPath: writable] = values[index] } }
            })
            return
        }
        // By the field's offset: a key path read per row cost hundreds of instructions.
        func value(_ bytes: UnsafeRawBufferPointer, _ row: Int) -> Element { bytes.load(fromByteOffset: row * stride + offset, as: Element.self) }
        self.init(column, isRequired: isRequired, append: { target, rows in
            let bytes = UnsafeRawBufferPointer(rows)
            try target.append(count: rows.count) { value(bytes, $0) }
        }, values: { rows in
            let bytes = UnsafeRawBufferPointer(rows)
            return (0..<rows.count).map { value(bytes, $0) }
        }, fill: { rows, values in
            let bytes = UnsafeMutableRawBufferPointer(rows)
            for index in values.indices { bytes.storeBytes(of: values[index], toByteOffset: index * stride + offset, as: Element.self) }
        })
    }

    /// A field stored as another type than the column's (`Marker.kind`, an
    /// enum): converted by `get` and `set`.
    public init<Element>(_ column: TypedColumn<Element>, isRequired: Bool = true, get: @escaping (Row) -> Element,
                         set: @escaping (inout Row, Element) -> Void) {
        self.init(column, isRequired: isRequired, append: { target, rows in
            for row in rows { try target.append(get(row)) }
        }, values: { rows in rows.map(get) }, fill: { rows, values in for index in values.indices { set(&rows[index], values[index]) } })
    }

    /// `append` copies a batch of rows' field into the column, `fill` a
    /// range of the column's values into rows' field.
    private init<Element>(_ column: TypedColumn<Element>, isRequired: Bool,
                          append: @escaping (Column<Element>, UnsafeBufferPointer<Row>) throws -> Void,
                          values: @escaping (UnsafeBufferPointer<Row>) -> [Element],
                          fill: ((UnsafeMutableBufferPointer<Row>, [Element]) -> Void)?) {
        schema = column.schema
        self.isRequired = isRequired
        create = { group, layout, chunkRows in
            let target = try layout.create(group, column, chunkRows: chunkRows)
            return RowSink(append: { rows in try append(target, rows) }, flush: target.flush)
        }
        write = { group, rows in try group.write(column, values(rows)) }
        open = { group in
            let opened = try group.open(column)
            return (BlockColumn(opened), opened.count)
        }
        openSource = fill.map { fill in
            { group in
                let opened = try group.open(column)
                return RowSource(rows: opened.count) { range, rows in
                    precondition(range.count <= rows.count, "\(column.name): more values than rows")
                    fill(rows, try opened.read(range))
                }
            }
        }
    }

    /// A column of strings, which only short tables have (labels): written
    /// and read whole.
    public init(_ column: StringColumn, _ field: WritableKeyPath<Row, String>, isRequired: Bool = true) {
        schema = column.schema
        self.isRequired = isRequired
        create = { _, _, _ in preconditionFailure("\(column.name): a string column is written whole") }
        write = { group, rows in try group.write(column, rows.map { $0[keyPath: field] }) }
        open = { _ in preconditionFailure("\(column.name): a string column is read whole") }
        openSource = { group in
            let values = try group.read(column)
            return RowSource(rows: values.count) { range, rows in
                precondition(range.count <= rows.count, "\(column.name): more values than rows")
                for (index, value) in values[range].enumerated() { rows[index][keyPath: field] = value }
            }
        }
    }

    public var name: String { schema.name }
}

/// Appends one column's values from a batch of rows.
struct RowSink<Row> {
    let append: (UnsafeBufferPointer<Row>) throws -> Void
    let flush: () throws -> Void
}

/// One column opened for reading: `read` stores rows `range` of it into the
/// field of the first `range.count` rows given.
struct RowSource<Row> {
    let rows: Int
    let read: (Range<Int>, UnsafeMutableBufferPointer<Row>) throws -> Void
}

/// A table's columns opened by name through its fields, read into rows.
struct TableRows<Row> {
    /// The rows each required column holds, in the fields' order.
    let lengths: [Int]
    /// Optional columns may hold fewer rows (older files): the rows past
    /// their end keep the blank row's value.
    private let sources: [RowSource<Row>]
    /// Every field's value starts as this row's (a field not read keeps it).
    private let blank: Row

    /// Opens `fields` in `table`: the optional ones it lacks and the ones that
    /// cannot be set are left out.
    init(_ table: Group, _ fields: [TableField<Row>], blank: Row) throws {
        var sources: [RowSource<Row>] = [], lengths: [Int] = []
        for field in fields where field.isRequired || table.contains(field.schema) {
            guard let source = try field.openSource?(table) else { continue }
            sources.append(source)
            if field.isRequired { lengths.append(source.rows) }
        }
        self.sources = sources
        self.lengths = lengths
        self.blank = blank
    }

    /// Rows `range`, which every required column must hold.
    func read(_ range: Range<Int>) throws -> [Row] {
        var rows = [Row](repeating: blank, count: range.count)
        try rows.withUnsafeMutableBufferPointer { buffer in
            for source in sources {
                let held = range.clamped(to: 0..<source.rows)
                if !held.isEmpty { try source.read(held, buffer) }
            }
        }
        return rows
    }
}

/// How the writer makes a table's columns: the file's compression, full
/// chunks through the pipeline, deferred where the format allows.
struct ColumnLayout {
    let chunkRows: Int
    let compression: Compression
    let pipeline: ChunkPipeline?
    /// A SWMR writer's: partial chunks written whole, cheaply deflated.
    var openChunks: OpenChunkWriter? = nil
    let deferred: Bool

    func create<Element>(_ table: Group, _ column: TypedColumn<Element>, chunkRows: Int? = nil) throws -> Column<Element> {
        try table.createColumn(column, chunkRows: chunkRows ?? self.chunkRows, compression: compression, pipeline: pipeline,
                               openChunks: openChunks, deferred: deferred)
    }
}

/// One block of rows of the samples table, one view per column read into the
/// block reader's buffers (`TraceRecording.forEachSampleBuffer`): valid only
/// inside its `body`. Columns are found by name.
public struct SampleBuffers {
    public let rows: Range<Int>
    let block: ColumnBlocks.Block
    /// The columns read, in the block's order.
    let columns: [ColumnSchema]

    /// Whether the block has `column`: an optional one the file lacks is not read.
    public func contains<Element>(_ column: TypedColumn<Element>) -> Bool {
        columns.contains { $0.name == column.name }
    }

    /// `column`'s values for `rows`; it must be one of the columns read.
    public subscript<Element>(column: TypedColumn<Element>) -> UnsafeBufferPointer<Element> {
        guard let index = columns.firstIndex(where: { $0.name == column.name }) else {
            preconditionFailure("samples/\(column.name) was not read")
        }
        precondition(columns[index].element == column.schema.element, "samples/\(column.name) read as another type")
        return block.values(index, as: Element.self)
    }
}
