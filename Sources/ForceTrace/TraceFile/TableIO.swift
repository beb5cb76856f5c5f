import HDF5

/// Reads and writes of one table group, named by the schema's typed columns
/// so that no caller spells a column name.
extension Group {
    /// Creates an empty extendible column, with its `units` and `long_name`.
    /// - Parameter deferred: see `Group.createColumn`.
    func createColumn<Element>(_ column: TypedColumn<Element>, chunkRows: Int, compression: Compression,
                               pipeline: ChunkPipeline? = nil, openChunks: OpenChunkWriter? = nil, deferred: Bool = false) throws -> Column<Element> {
        try createColumn(column.name, chunkRows: chunkRows, compression: compression, pipeline: pipeline, openChunks: openChunks,
                         attributes: [("units", .string(column.schema.units)), ("long_name", .string(column.schema.longName))],
                         deferred: deferred)
    }

    /// Writes a short table's column in one go.
    /// Tables written whole (labels) are chunked and compressed like the rest.
    func write<Element>(_ column: TypedColumn<Element>, _ values: [Element]) throws {
        try writeCompressedArray(column.name, values)
        try describe(column.schema)
    }

    func write(_ column: StringColumn, _ values: [String]) throws {
        try writeCompressedStrings(column.name, values)
        try describe(column.schema)
    }

    /// Writes a short table whole, one column per field, in the fields' order.
    func write<Row>(_ rows: [Row], _ fields: [TableField<Row>]) throws {
        try rows.withUnsafeBufferPointer { rows in
            for field in fields { try field.write(self, rows) }
        }
    }

    func open<Element>(_ column: TypedColumn<Element>) throws -> Column<Element> {
        try openColumn(column.name)
    }

    func read<Element>(_ column: TypedColumn<Element>) throws -> [Element] {
        try readArray(column.name)
    }

    func read(_ column: StringColumn) throws -> [String] {
        try readStrings(column.name)
    }

    func contains(_ column: ColumnSchema) -> Bool { contains(column.name) }

    /// The column's `units` and `long_name` attributes (an addition within
    /// format version 1, docs/FORMAT.md).
    func describe(_ column: ColumnSchema) throws {
        try setAttribute("units", .string(column.units), onMember: column.name)
        try setAttribute("long_name", .string(column.longName), onMember: column.name)
    }
}

extension TraceSchema {
    /// Gives every table of the recording `group` its dimension scale
    /// (`TraceSchema.Table.dimension`, shared by all its columns), so netCDF
    /// readers see named dimensions. Not possible in SWMR mode, which
    /// forbids new objects: the recorder adds them when it compacts.
    static func attachDimensionScales(in group: Group) throws {
        for table in Table.allCases where group.contains(table.rawValue) {
            let tableGroup = try group.openGroup(table.rawValue)
            let columns = table.columns.filter { tableGroup.contains($0) }.map(\.name)
            guard let first = columns.first else { continue }
            try tableGroup.attachDimensionScale(table.dimension, rows: try tableGroup.storage(of: first).rows, to: columns)
        }
    }
}
