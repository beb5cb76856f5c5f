import HDF5

/// Names and versions of trace format v1 (docs/FORMAT.md), and one typed
/// description per table. The writer, the reader, the recorder's compaction
/// and the analysis take every table and column name from here.
public enum TraceSchema {
    public static let formatName = "forcetrace"
    /// Bumped only for changes that old readers would misread.
    public static let formatVersion: Int64 = 1
    public static let recordingsGroup = "recordings"

    /// The tables of a recording, one group each.
    public enum Table: String, CaseIterable, Sendable {
        case axes, capabilities, events, samples, contacts, markers, labels, force

        /// The HDF5 dimension (scale) that the table's columns share.
        public var dimension: String {
            switch self {
            case .axes: "axis"
            case .capabilities: "capability"
            case .events: "event"
            case .samples: "sample"
            case .contacts: "contact"
            case .markers: "marker"
            case .labels: "label"
            case .force: "force_reading"
            }
        }

        /// Its columns, in the order FORMAT.md lists them.
        public var columns: [ColumnSchema] {
            switch self {
            case .axes: Axes.all
            case .capabilities: Capabilities.all
            case .events: Events.all
            case .samples: Samples.all
            case .contacts: Contacts.all
            case .markers: Markers.all
            case .labels: Labels.all
            case .force: Force.all
            }
        }

        /// Every recording has it; `labels` and `force` are optional.
        public var isRequired: Bool { self != .labels && self != .force }

        /// Events and samples grow with the recording; the others are short.
        public var isLong: Bool { self == .events || self == .samples }
    }

    /// `axes`: one row per absolute axis.
    public enum Axes {
        public static let code = TypedColumn<UInt16>(.axes, "code", units: "1", "ABS_* axis code")
        public static let name = StringColumn(.axes, "name", "kernel name of the axis, e.g. ABS_MT_PRESSURE")
        public static let min = TypedColumn<Int32>(.axes, "min", units: device, "minimum of the axis range")
        public static let max = TypedColumn<Int32>(.axes, "max", units: device, "maximum of the axis range")
        public static let fuzz = TypedColumn<Int32>(.axes, "fuzz", units: device, "kernel noise filter")
        public static let flat = TypedColumn<Int32>(.axes, "flat", units: device, "kernel dead zone")
        public static let resolution = TypedColumn<Int32>(.axes, "resolution", units: "device units per mm",
                                                          "device units per mm (per radian for rotation); 0 when unknown")
        public static let value = TypedColumn<Int32>(.axes, "value", units: device, "axis value when the description was taken")
        public static let all = [code.schema, name.schema, min.schema, max.schema, fuzz.schema, flat.schema,
                                 resolution.schema, value.schema]
    }

    /// `capabilities`: the supported event codes.
    public enum Capabilities {
        public static let type = TypedColumn<UInt16>(.capabilities, "type", units: "1", "EV_* event type (0: the row lists a supported type)")
        public static let code = TypedColumn<UInt16>(.capabilities, "code", units: "1", "supported code of that type")
        public static let all = [type.schema, code.schema]
    }

    /// `events`: every raw event, lossless.
    public enum Events {
        public static let tNs = TypedColumn<Int64>(.events, "t_ns", units: nanoseconds, "time since the first event (t0_ns)")
        public static let type = TypedColumn<UInt16>(.events, "type", units: "1", "EV_* event type")
        public static let code = TypedColumn<UInt16>(.events, "code", units: "1", "event code within the type")
        public static let value = TypedColumn<Int32>(.events, "value", units: device, "event value as the kernel sent it")
        /// Each column with the `InputEvent` field it holds (times relative
        /// to t0_ns), in the file's order: the writer and the reader go through this list.
        public static let fields = [TableField(tNs, \InputEvent.timeNs), TableField(type, \.type), TableField(code, \.code),
                                    TableField(value, \.value)]
        public static let all = fields.map(\.schema)
    }

    /// `samples`: one row per contact per frame that changed it.
    public enum Samples {
        public static let tNs = TypedColumn<Int64>(.samples, "t_ns", units: nanoseconds, "time of the frame's SYN_REPORT since t0_ns")
        public static let contact = TypedColumn<Int32>(.samples, "contact", units: "1", "contact id (row in contacts)")
        public static let slot = TypedColumn<Int16>(.samples, "slot", units: "1", "multitouch slot, -1 without slots")
        public static let x = TypedColumn<Int32>(.samples, "x", units: device, "x position (ABS_MT_POSITION_X or ABS_X)")
        public static let y = TypedColumn<Int32>(.samples, "y", units: device, "y position (ABS_MT_POSITION_Y or ABS_Y)")
        public static let pressure = TypedColumn<Int32>(.samples, "pressure", units: device,
                                                        "pressure (ABS_MT_PRESSURE or ABS_PRESSURE), -1 without a pressure axis")
        public static let flags = TypedColumn<UInt8>(.samples, "flags", units: "1",
                                                     "bits: 1 down, 2 x/y changed, 4 pressure changed, 8 after SYN_DROPPED")
        /// Each column with the `Sample` field it holds, in the file's order:
        /// the writer and the reader go through this list.
        public static let fields = [TableField(tNs, \Sample.tNs), TableField(contact, \.contact), TableField(slot, \.slot),
                                    TableField(x, \.x), TableField(y, \.y), TableField(pressure, \.pressure),
                                    TableField(flags, \.flags.rawValue)]
        public static let all = fields.map(\.schema)
    }

    /// `contacts`: one row per contact, ordered by id.
    public enum Contacts {
        public static let id = TypedColumn<Int32>(.contacts, "id", units: "1", "contact id, 0, 1, 2, ... in order of touch-down")
        public static let slot = TypedColumn<Int16>(.contacts, "slot", units: "1", "multitouch slot, -1 without slots")
        public static let trackingID = TypedColumn<Int32>(.contacts, "tracking_id", units: "1", "ABS_MT_TRACKING_ID, -1 without slots")
        public static let tool = TypedColumn<UInt16>(.contacts, "tool", units: "1", "BTN_TOOL_* code, 0 unknown")
        public static let tDownNs = TypedColumn<Int64>(.contacts, "t_down_ns", units: nanoseconds, "touch-down time since t0_ns")
        public static let tUpNs = TypedColumn<Int64>(.contacts, "t_up_ns", units: nanoseconds, "lift-off time since t0_ns, -1 when still down at the end")
        public static let firstSample = TypedColumn<Int64>(.contacts, "first_sample", units: "1", "row of its down sample in samples")
        public static let lastSample = TypedColumn<Int64>(.contacts, "last_sample", units: "1", "row of its last sample in samples")
        public static let sampleCount = TypedColumn<Int64>(.contacts, "n_samples", units: "1", "its number of rows in samples")
        /// Each column with the `Contact` field it holds, in the file's order.
        public static let fields = [TableField(id, \Contact.id), TableField(slot, \.slot), TableField(trackingID, \.trackingID),
                                    TableField(tool, \.tool), TableField(tDownNs, \.tDownNs), TableField(tUpNs, \.tUpNs),
                                    TableField(firstSample, \.firstSample), TableField(lastSample, \.lastSample),
                                    TableField(sampleCount, \.sampleCount)]
        public static let all = fields.map(\.schema)
    }

    /// `markers`: gaps in the stream.
    public enum Markers {
        public static let tNs = TypedColumn<Int64>(.markers, "t_ns", units: nanoseconds, "time of the marked event since t0_ns")
        public static let kind = TypedColumn<UInt8>(.markers, "kind", units: "1", "1 syn_dropped, 2 resync, 3 initial_state")
        public static let eventIndex = TypedColumn<Int64>(.markers, "event_index", units: "1", "row in events of the event that caused it")
        /// Each column with the `Marker` field it holds, in the file's order.
        /// A kind this forcetrace does not know leaves the row's as it was
        /// (`TraceRecording.markers()` drops such rows).
        public static let fields = [TableField(tNs, \Marker.tNs),
                                    TableField(kind, get: { $0.kind.rawValue }, set: { $0.kind = MarkerKind(rawValue: $1) ?? $0.kind }),
                                    TableField(eventIndex, \.eventIndex)]
        public static let all = fields.map(\.schema)
    }

    /// `labels`: optional ground truth per contact.
    public enum Labels {
        public static let contact = TypedColumn<Int32>(.labels, "contact", units: "1", "matched contact id, -1 where none matches")
        public static let slot = TypedColumn<Int16>(.labels, "slot", units: "1", "slot of the labelled press")
        public static let trackingID = TypedColumn<Int32>(.labels, "tracking_id", units: "1", "tracking id of the labelled press")
        public static let tNs = TypedColumn<Int64>(.labels, "t_ns", units: nanoseconds, "time of the label since t0_ns")
        public static let pressClass = StringColumn(.labels, "class", "press class: tap, peek-press or pop-press")
        public static let kind = StringColumn(.labels, "kind", "the simulator's press kind, empty when unknown")
        public static let intendedPeak = TypedColumn<Double>(.labels, "intended_peak", units: "1",
                                                             "scripted peak normalized pressure, NaN when unknown")
        /// Calibration trials only (`forcetrace calibrate`).
        public static let peak = TypedColumn<Int32>(.labels, "peak", units: device,
                                                    "largest raw pressure of the trial (a hover: the noise), -1 when unknown")
        public static let tEndNs = TypedColumn<Int64>(.labels, "t_end_ns", units: nanoseconds, "time the trial ended since t0_ns")
        /// Each column with the `LabelRow` field it holds, in the file's order;
        /// `kind` and `intended_peak` came within the version (FORMAT.md's history).
        public static let fields = [TableField(contact, \LabelRow.contact), TableField(slot, \.slot),
                                    TableField(trackingID, \.trackingID), TableField(tNs, \.tNs),
                                    TableField(pressClass, \.pressClass), TableField(kind, \.kind, isRequired: false),
                                    TableField(intendedPeak, \.intendedPeak, isRequired: false)]
        public static let all = fields.map(\.schema)
        /// Present only in a calibration's labels table, besides `fields`.
        public static let calibrationFields = [TableField(peak, \LabelRow.peak), TableField(tEndNs, \.tEndNs)]
        public static let calibrationOnly = calibrationFields.map(\.schema)
        /// `levels` sessions only (docs/FORMAT.md, "labels").
        public static let level = TypedColumn<Int16>(.labels, "level", units: "1", "level asked for, 1 = the lightest")
        public static let levelCount = TypedColumn<Int16>(.labels, "level_count", units: "1", "how many levels the trial's set has")
        public static let held = TypedColumn<Int32>(.labels, "held", units: device,
                                                    "highest raw pressure the trial kept for 300 ms (largest 300 ms median)")
        public static let levelsFields = [TableField(level, \LabelRow.level), TableField(levelCount, \.levelCount),
                                          TableField(held, \.held)]
        public static let levelsOnly = levelsFields.map(\.schema)
    }

    /// `force`: one row per reading of a scale recorded beside the device
    /// (`record --scale`), written when the recording stops.
    public enum Force {
        public static let tNs = TypedColumn<Int64>(.force, "t_ns", units: nanoseconds, "time the reading arrived since t0_ns, on the events' clock")
        public static let grams = TypedColumn<Double>(.force, "grams", units: "g",
                                                      "force on the scale's pan in gram-force; NaN where status says there is no weight")
        public static let status = TypedColumn<UInt16>(.force, "status", units: "1", "status flags, bit per the table's status_flags attribute")
        public static let rawValue = TypedColumn<Double>(.force, "raw_value", units: "1", "the number as the scale sent it, in raw_unit")
        public static let rawUnit = StringColumn(.force, "raw_unit", "the unit as the scale named it (escaped)")

        public static let fields = [TableField(tNs, \ScaleReading.timeNs), TableField(grams, \.grams),
                                    TableField(status, get: { $0.status.rawValue }, set: { $0.status = ScaleStatus(rawValue: $1) }),
                                    TableField(rawValue, \.rawValue), TableField(rawUnit, \.rawUnit)]
        public static let all = fields.map(\.schema)
    }

    /// Columns that came within version 1, which older files lack (`ColumnSchema.isRequired`).
    static let optionalColumns: Set<String> = ["axes/value", "labels/kind", "labels/intended_peak"]

    /// CF/udunits spelling, which xarray decodes as a time span.
    static let nanoseconds = "nanoseconds"
    /// Raw integers of the device's axis; normalize with the axes table.
    static let device = "device units"
}

/// Attribute names of the root group.
enum FileAttribute {
    static let format = "format"
    static let formatVersion = "format_version"
    static let createdUTC = "created_utc"
    static let toolVersion = "tool_version"
}

/// Attribute names of a recording's group (docs/FORMAT.md).
enum RecordingAttribute {
    static let source = "source"
    static let deviceName = "device_name"
    static let deviceID = "device_id"
    static let properties = "properties"
    static let clock = "clock"
    static let t0Ns = "t0_ns"
    static let contactProtocol = "contact_protocol"
    static let slots = "slots"
    static let pressureAxis = "pressure_axis"
    static let importStatus = "import_status"
    static let importError = "import_error"
    static let ledState = "led_state"
    static let switchState = "switch_state"
    /// `SystemInfo`: the kernel release and DMI modalias the source named.
    static let kernel = "kernel"
    static let dmi = "dmi"
    static let label = "label"
    static let stopReason = "stop_reason"
    static let keycodes = "keycodes"
    /// On `markers`: the kind codes, "1=syn_dropped" and so on.
    static let markerKinds = "kinds"
    /// On `labels`: the scripted thresholds.
    static let peek = "peek"
    static let pop = "pop"
    /// On `labels` of a calibration: `app`, `touchpad` or `pen`.
    static let calibrationProtocol = "protocol"
    /// On `labels` of a `levels` session: the order's seed, the tested level
    /// counts, the trials per level and the normalized range the bands divide.
    static let levelsSeed = "seed"
    static let levelCounts = "level_counts"
    static let trialsPerLevel = "trials_per_level"
    static let levelRange = "level_range"
}

/// Attribute names of the `force` table (docs/FORMAT.md, "force").
enum ForceAttribute {
    static let scaleKind = "scale_kind"
    static let scaleDevice = "scale_device"
    static let scaleName = "scale_name"
    static let unit = "unit"
    static let unitExponent = "unit_exponent"
    static let statusFlags = "status_flags"
    static let lagNs = "lag_ns"
    static let lagUncertaintyNs = "lag_uncertainty_ns"
    static let scaleError = "scale_error"
}

/// What one column holds in the file.
public enum ColumnElement: Sendable, Equatable {
    /// Numbers of one native HDF5 type.
    case scalar(ScalarKind)
    /// UTF-8 strings, fixed- or variable-length.
    case string

    /// The element as `DatasetStorage` describes a file's.
    public var stored: StoredElement {
        switch self {
        case .scalar(let kind):
            switch kind {
            case .int8, .int16, .int32, .int64: .integer(bytes: kind.byteCount, signed: true)
            case .uint8, .uint16, .uint32, .uint64: .integer(bytes: kind.byteCount, signed: false)
            case .float32, .float64: .float(bytes: kind.byteCount)
            }
        case .string: .string
        }
    }
}

/// One column of a table: its name, element type, and the `units` and
/// `long_name` attributes that make the file self-describing.
public struct ColumnSchema: Sendable, Equatable {
    public let table: TraceSchema.Table
    public let name: String
    public let element: ColumnElement
    /// udunits spelling ("nanoseconds", "device units", "1" for codes and counts); "" for strings.
    public let units: String
    public let longName: String
    /// The HDF5 dimension (scale) it shares with its table's other columns.
    public var dimension: String { table.dimension }
    /// Whether every file's table has it: all but the columns that came
    /// within the version (`axes/value`, `labels/kind`, `labels/intended_peak`),
    /// which readers take as unknown where a file lacks them.
    public var isRequired: Bool { !TraceSchema.optionalColumns.contains("\(table.rawValue)/\(name)") }
}

/// A numeric column whose Swift element type is fixed, so reads and writes
/// through it are typed.
public struct TypedColumn<Element: HDF5Scalar>: Sendable {
    public let schema: ColumnSchema
    init(_ table: TraceSchema.Table, _ name: String, units: String, _ longName: String) {
        schema = ColumnSchema(table: table, name: name, element: .scalar(Element.scalarKind), units: units, longName: longName)
    }
    public var name: String { schema.name }
}

/// A column of variable-length UTF-8 strings.
public struct StringColumn: Sendable {
    public let schema: ColumnSchema
    init(_ table: TraceSchema.Table, _ name: String, _ longName: String) {
        schema = ColumnSchema(table: table, name: name, element: .string, units: "", longName: longName)
    }
    public var name: String { schema.name }
}

/// `import_status` of a recording.
public enum ImportStatus: String, Sendable, Equatable {
    /// Every row is written.
    case complete
    /// Salvaged from damaged input; `import_error` says why.
    case partial
}
