import Foundation
import HDF5
import XCTest
@testable import ForceTrace

/// The schema (`TraceSchema`) is the one description of the file: what the
/// writer puts in a table is exactly what the schema lists, with its
/// `units` and `long_name`.
final class SchemaTests: XCTestCase {
    private func importedSample(_ name: String) throws -> String {
        let directory = try makeTemporaryDirectory(self)
        let path = directory.appendingPathComponent("\(name).h5").path
        let writer = try TraceWriter(creating: path)
        try writer.write(try Evemu.read(packageRoot.appendingPathComponent("samples/\(name).evemu").path))
        try writer.close()
        return path
    }

    func testEveryTableHoldsExactlyTheSchemaColumnsWithUnitsAndLongNames() throws {
        // touchscreen-deep-presses carries ground truth, so it has a labels table too.
        let path = try importedSample("touchscreen-deep-presses")
        let file = try File.open(path)
        defer { try? file.close() }
        let recordings = try file.root.openGroup(TraceSchema.recordingsGroup)
        let recording = try recordings.openGroup(try recordings.memberNames()[0])
        // Every table but force, which only a recording with --scale has (ForceTableTests checks it).
        let tables = TraceSchema.Table.allCases.filter { $0 != .force }
        XCTAssertEqual(Set(try recording.memberNames()), Set(tables.map(\.rawValue)))
        for table in tables {
            let group = try recording.openGroup(table.rawValue)
            let columns = Set(try group.memberNames()).subtracting([table.dimension])
            XCTAssertEqual(columns, Set(table.columns.map(\.name)), table.rawValue)
            XCTAssertTrue(try group.isDimensionScale(table.dimension), "\(table.rawValue)/\(table.dimension)")
            XCTAssertFalse(try group.isDimensionScale(table.columns[0].name))
            for column in table.columns {
                XCTAssertEqual(try group.attribute("units", ofMember: column.name), .string(column.units), "\(table)/\(column.name)")
                XCTAssertEqual(try group.attribute("long_name", ofMember: column.name), .string(column.longName), "\(table)/\(column.name)")
                XCTAssertFalse(column.longName.isEmpty)
            }
        }
    }

    func testTimeColumnsAreInNanosecondsAndNoColumnNameRepeatsInATable() {
        for table in TraceSchema.Table.allCases {
            XCTAssertEqual(Set(table.columns.map(\.name)).count, table.columns.count, table.rawValue)
            XCTAssertFalse(table.columns.map(\.name).contains(table.dimension), table.rawValue)
            for column in table.columns where column.name.hasSuffix("_ns") {
                XCTAssertEqual(column.units, "nanoseconds", "\(table)/\(column.name)")
            }
            XCTAssertTrue(table.columns.allSatisfy { $0.table == table })
        }
    }

    func testRecordingSourcesReadBackAsTheyWereWritten() {
        let sources: [RecordingSource] = [
            .evemu(path: "/tmp/a b.evemu"), .libinput(path: "x.yml", device: nil), .libinput(path: "x.yml", device: 2),
            .raw(path: "r.bin"), .simulated(seed: 7), .evdev(node: "/dev/input/event5"),
            .replay(.evemu(path: "/tmp/s:1.evemu")), .other("something-new:x"),
        ]
        for source in sources {
            XCTAssertEqual(RecordingSource(source.description), source, source.description)
        }
        XCTAssertEqual(RecordingSource("replay:evemu:/x").description, "replay:evemu:/x")
        XCTAssertEqual(RecordingSource("simulate:seed=x"), .other("simulate:seed=x"))
    }

    func testTypedAccessorsReadWhatTheWriterWrote() throws {
        let path = try importedSample("touchscreen-mixed")
        let recording = try Evemu.read(packageRoot.appendingPathComponent("samples/touchscreen-mixed.evemu").path)
        let reader = try TraceReader(path: path)
        let trace = try reader.recording(reader.recordingNames[0])
        XCTAssertEqual(trace.importStatus, .complete)
        XCTAssertEqual(trace.source, recording.source)
        XCTAssertEqual(try trace.read(TraceSchema.Events.value), recording.events.map(\.value))
        var rows = 0
        var pressures: [Int32] = []
        try trace.forEachSampleBuffer(blockRows: 100) { block in
            XCTAssertEqual(block.rows.lowerBound, rows)
            rows = block.rows.upperBound
            pressures += block[TraceSchema.Samples.pressure]
        }
        XCTAssertEqual(rows, try trace.rowCount(.samples))
        XCTAssertEqual(pressures, try trace.read(TraceSchema.Samples.pressure))
        XCTAssertEqual(trace.lastEventTimeNs(), recording.events.last!.timeNs - recording.t0Ns)
        XCTAssertEqual(try trace.rowCount(.labels), recording.groundTruth.labels.count)
    }

    /// A samples column is one `TableField<Sample>` and one field of `Sample`: here
    /// one made from fields the decoder fills, passed through the options.
    /// The mixed sample written with `options` (columns added), and a reader of it.
    private func writeWidened(_ options: TraceWriteOptions) throws -> (path: String, reader: TraceReader) {
        let path = try makeTemporaryDirectory(self).appendingPathComponent("widened.h5").path
        let writer = try TraceWriter(creating: path, options: options)
        try writer.write(try Evemu.read(packageRoot.appendingPathComponent("samples/touchscreen-mixed.evemu").path))
        try writer.close()
        return (path, try TraceReader(path: path))
    }

    func testAColumnAddedToTheSampleFieldsIsWrittenReadByNameAndSeenByPython() throws {
        let sum = TypedColumn<Int64>(.samples, "x_plus_y", units: "device units", "x + y, a test column")
        let xPlusY = TableField(sum, \Sample.xPlusY)
        var options = TraceWriteOptions()
        options.sampleColumns.append(xPlusY)
        let (path, reader) = try writeWidened(options)
        let trace = try reader.recording(reader.recordingNames[0])
        let x = try trace.read(TraceSchema.Samples.x), y = try trace.read(TraceSchema.Samples.y)
        XCTAssertFalse(x.isEmpty)
        let expected = zip(x, y).map { Int64($0) + Int64($1) }
        XCTAssertEqual(try trace.read(sum), expected)
        var read: [Int64] = []
        try trace.forEachSampleBuffer(columns: TraceSchema.Samples.fields + [xPlusY], blockRows: 100) { block in
            read += block[sum]
            XCTAssertEqual(Array(block[TraceSchema.Samples.x]), Array(x[block.rows]))
        }
        XCTAssertEqual(read, expected)
        let file = try File.open(path)
        let samples = try file.root.openGroup("\(TraceSchema.recordingsGroup)/\(reader.recordingNames[0])/samples")
        XCTAssertEqual(try samples.attribute("units", ofMember: "x_plus_y"), .string("device units"))
        XCTAssertEqual(try samples.attribute("long_name", ofMember: "x_plus_y"), .string("x + y, a test column"))
        try file.close()
        try reader.close()
        try runPython("""
            import sys
            sys.path.insert(0, "\(packageRoot.appendingPathComponent("python").path)")
            import numpy as np, forcetrace as ft
            with ft.open(sys.argv[1]) as trace:
                frame = trace[trace.recordings[0]].samples()
            assert frame.columns[-1] == "x_plus_y", list(frame.columns)
            assert frame["x_plus_y"].dtype == np.int64, frame["x_plus_y"].dtype
            np.testing.assert_array_equal(frame["x_plus_y"].to_numpy(), frame["x"].to_numpy().astype(np.int64) + frame["y"])
            assert frame.attrs["units"]["x_plus_y"] == "device units"
            assert frame.attrs["long_name"]["x_plus_y"] == "x + y, a test column"
            """, path)

        // A file written without it: skipped when the column is optional, an error when it is required.
        let plain = try TraceReader(path: try importedSample("touchscreen-mixed"))
        let older = try plain.recording(plain.recordingNames[0])
        var blocks = 0
        try older.forEachSampleBuffer(columns: TraceSchema.Samples.fields + [TableField(sum, \Sample.xPlusY, isRequired: false)]) { block in
            XCTAssertFalse(block.contains(sum))
            XCTAssertTrue(block.contains(TraceSchema.Samples.x))
            blocks += 1
        }
        XCTAssertEqual(blocks, 1)
        XCTAssertThrowsError(try older.forEachSampleBuffer(columns: TraceSchema.Samples.fields + [xPlusY]) { _ in })
    }

    /// Every other table goes by its field list the same way: a column added
    /// to the contacts' and the events' lists reaches the file with its units
    /// and long name, reads back by name, and Python's `contacts()` and
    /// `events()` show it as stored.
    func testAColumnAddedToTheContactAndEventFieldsIsWrittenReadByNameAndSeenByPython() throws {
        let span = TypedColumn<Int64>(.contacts, "span_ns", units: "nanoseconds", "t_up_ns - t_down_ns, a test column")
        let key = TypedColumn<UInt32>(.events, "type_code", units: "1", "type * 65536 + code, a test column")
        var options = TraceWriteOptions()
        options.contactColumns.append(TableField(span, \Contact.spanNs))
        options.eventColumns.append(TableField(key, \InputEvent.typeCode))
        let (path, reader) = try writeWidened(options)
        let trace = try reader.recording(reader.recordingNames[0])
        let contacts = try trace.contacts()
        XCTAssertFalse(contacts.isEmpty)
        XCTAssertEqual(try trace.read(span), contacts.map(\.spanNs))
        var events: [InputEvent] = []
        try trace.forEachEventBlock { events += $0 }
        XCTAssertGreaterThan(events.count, contacts.count)
        XCTAssertEqual(try trace.read(key), events.map(\.typeCode))
        let file = try File.open(path)
        let group = try file.root.openGroup("\(TraceSchema.recordingsGroup)/\(reader.recordingNames[0])")
        for (table, column) in [("contacts", span.schema), ("events", key.schema)] {
            let members = try group.openGroup(table)
            XCTAssertEqual(try members.attribute("units", ofMember: column.name), .string(column.units))
            XCTAssertEqual(try members.attribute("long_name", ofMember: column.name), .string(column.longName))
        }
        try file.close()
        try reader.close()
        try runPython("""
            import sys
            sys.path.insert(0, "\(packageRoot.appendingPathComponent("python").path)")
            import numpy as np, forcetrace as ft
            with ft.open(sys.argv[1]) as trace:
                recording = trace[trace.recordings[0]]
                contacts, events = recording.contacts(), recording.events()
            assert "span_ns" in contacts.columns, list(contacts.columns)
            assert contacts["span_ns"].dtype == np.int64, contacts["span_ns"].dtype
            up, down = contacts["t_up"].to_numpy().astype(np.int64), contacts["t_down"].to_numpy().astype(np.int64)
            np.testing.assert_array_equal(contacts["span_ns"].to_numpy(), up - down)
            assert contacts.attrs["units"]["span_ns"] == "nanoseconds"
            assert contacts.attrs["long_name"]["span_ns"] == "t_up_ns - t_down_ns, a test column"
            assert "type_code" in events.columns, list(events.columns)
            assert events["type_code"].dtype == np.uint32, events["type_code"].dtype
            np.testing.assert_array_equal(events["type_code"].to_numpy(),
                                          events["type_id"].to_numpy().astype(np.uint32) * 65536 + events["code_id"])
            assert events.attrs["units"]["type_code"] == "1"
            assert events.attrs["long_name"]["type_code"] == "type * 65536 + code, a test column"
            """, path)
    }
}

/// Values computed from fields the decoder path fills, for the added-column tests.
private extension Sample {
    var xPlusY: Int64 { Int64(x) + Int64(y) }
}

private extension Contact {
    var spanNs: Int64 { tUpNs - tDownNs }
}

private extension InputEvent {
    var typeCode: UInt32 { UInt32(type) << 16 | UInt32(code) }
}

/// One rendering for every user-facing failure: "file: message", a hint.
final class ErrorModelTests: XCTestCase {
    func testEachHDF5FailureKindGetsItsOwnMessage() {
        func render(_ kind: HDF5Error.Kind, errno: Int32? = nil) -> String {
            ForceTraceError(HDF5Error(function: "H5Dwrite", context: "/data/out.h5:/recordings/r/samples/t_ns",
                                      stack: ["file write failed (H5FD__sec2_write)"], kind: kind, errno: errno)).description
        }
        XCTAssertTrue(render(.noSpace, errno: ENOSPC).hasPrefix("/data/out.h5: no space left on the device holding /data/out.h5\n  hint: "))
        XCTAssertTrue(render(.noSpace, errno: EDQUOT).contains("(disk quota exceeded)"))
        XCTAssertTrue(render(.permissionDenied, errno: EACCES).hasPrefix("/data/out.h5: permission denied\n  hint: "))
        XCTAssertTrue(render(.permissionDenied, errno: EROFS).hasPrefix("/data/out.h5: the file system holding it is read-only"))
        XCTAssertTrue(render(.locked).hasPrefix("/data/out.h5: the file is locked by another process"))
        XCTAssertTrue(render(.truncated).hasPrefix("/data/out.h5: truncated file"))
        XCTAssertTrue(render(.other).hasPrefix("/data/out.h5: the file is damaged and HDF5 cannot read it (file write failed"))
        let messages = [render(.noSpace), render(.permissionDenied), render(.locked), render(.truncated), render(.notFound), render(.other)]
        XCTAssertEqual(Set(messages).count, messages.count)
    }

    func testLocationsRenderAsBefore() {
        XCTAssertEqual(ForceTraceError(file: "a.evemu", location: .line(3), "bad", hint: "fix it").description, "a.evemu:3: bad\n  hint: fix it")
        XCTAssertEqual(ForceTraceError(file: "a.raw", location: .byteOffset(48), "cut").description, "a.raw: at byte 48: cut")
    }
}

/// python/forcetrace/schema.json is the registry as the Python package reads
/// it: the same tables, columns, element types and limits, so that both
/// readers enforce one description.
final class SchemaExportTests: XCTestCase {
    func testThePythonPackagesSchemaIsTheRegistry() throws {
        let url = packageRoot.appendingPathComponent("python/forcetrace/schema.json")
        let shipped = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        XCTAssertEqual(shipped["format"] as? String, TraceSchema.formatName)
        XCTAssertEqual((shipped["format_version"] as? NSNumber)?.int64Value, TraceSchema.formatVersion)
        XCTAssertEqual(shipped["recordings_group"] as? String, TraceSchema.recordingsGroup)
        let limits = try XCTUnwrap(shipped["limits"] as? [String: NSNumber])
        XCTAssertEqual(limits["time_ns"]?.int64Value, TraceValidation.timeLimitNs)
        XCTAssertEqual(limits["maximum_compression_ratio"]?.uint64Value, TraceValidation.maximumCompressionRatio)
        XCTAssertEqual(limits["minimum_chunk_bytes"]?.uint64Value, TraceValidation.minimumChunkBytes)
        XCTAssertEqual(limits["maximum_chunk_bytes"]?.uint64Value, TraceValidation.maximumChunkBytes)
        XCTAssertEqual(limits["maximum_group_depth"]?.intValue, Group.maximumWalkDepth)
        XCTAssertEqual(limits["shown_violations"]?.intValue, TraceValidation.shownViolations)
        XCTAssertEqual(limits["maximum_slots"]?.intValue, DeviceDescription.maximumSlots)
        XCTAssertEqual(limits["maximum_axis_code"]?.intValue, Int(AbsoluteAxis.max))
        XCTAssertEqual(shipped["report_format"] as? String, ReportFile.formatName)
        let tables = try XCTUnwrap(shipped["tables"] as? [[String: Any]])
        XCTAssertEqual(tables.map { $0["name"] as? String }, TraceSchema.Table.allCases.map(\.rawValue))
        for (table, entry) in zip(TraceSchema.Table.allCases, tables) {
            XCTAssertEqual(entry["dimension"] as? String, table.dimension)
            XCTAssertEqual(entry["required"] as? Bool, table.isRequired, table.rawValue)
            let columns = try XCTUnwrap(entry["columns"] as? [[String: Any]])
            XCTAssertEqual(columns.map { $0["name"] as? String }, table.columns.map(\.name), table.rawValue)
            for (column, shippedColumn) in zip(table.columns, columns) {
                XCTAssertEqual(shippedColumn["element"] as? String, column.element.stored.description, "\(table)/\(column.name)")
                XCTAssertEqual(shippedColumn["required"] as? Bool, column.isRequired, "\(table)/\(column.name)")
            }
        }
        let classes = try XCTUnwrap(shipped["label_classes"] as? [String: [String]])
        XCTAssertEqual(Set(try XCTUnwrap(classes["press"])), Set(PressClass.labels.keys))
        XCTAssertEqual(Set(try XCTUnwrap(classes["calibration_only"])),
                       Set(TrialClass.allCases.filter { $0.pressClass == nil }.map(\.rawValue)))
    }
}
