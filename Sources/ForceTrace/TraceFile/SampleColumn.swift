import HDF5

/// A column of the samples table bound to the `Sample` field it holds. The
/// writer appends and the reader opens every entry of a list of these
/// (`TraceSchema.Samples.fields`), so a new samples column is one entry
/// there and one field of `Sample`.
public struct SampleColumn: @unchecked Sendable {  // a key path is immutable
    public let schema: ColumnSchema
    /// Files of this format version all have it. A column added within a
    /// version is not: the reader skips it where a file lacks it.
    public let isRequired: Bool
    /// Makes the column in a new samples group; what appends `Sample`s to it.
    let create: (Group, ColumnLayout) throws -> SampleSink
    /// Opens the column for the block reader, with its rows.
    let open: (Group) throws -> (column: BlockColumn, rows: Int)

    public init<Element>(_ column: TypedColumn<Element>, _ field: KeyPath<Sample, Element>, isRequired: Bool = true) {
        precondition(column.schema.table == .samples, "\(column.name) is not a samples column")
        schema = column.schema
        self.isRequired = isRequired
        // A stored field is copied from its offset: no key-path lookup per row.
        let offset = MemoryLayout<Sample>.offset(of: field)
        create = { group, layout in
            let target = try layout.create(group, column)
            guard let offset else {
                return SampleSink(append: { rows in for sample in rows { try target.append(sample[keyPath: field]) } },
                                  flush: target.flush)
            }
            return SampleSink(append: { rows in
                let bytes = UnsafeRawBufferPointer(rows), stride = MemoryLayout<Sample>.stride
                for row in 0..<rows.count {
                    try target.append(bytes.load(fromByteOffset: row * stride + offset, as: Element.self))
                }
            }, flush: target.flush)
        }
        open = { group in
            let opened = try group.open(column)
            return (BlockColumn(opened), opened.count)
        }
    }

    public var name: String { schema.name }
}

/// Appends one samples column's values from a frame's `Sample`s.
struct SampleSink {
    let append: (UnsafeBufferPointer<Sample>) throws -> Void
    let flush: () throws -> Void
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
