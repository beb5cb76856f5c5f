import Foundation

// Lane 0's checks of every row, and the ranges a valid sample lies in.

/// A pressure, x and y inside the device's ranges.
struct SampleBounds {
    var x: (Int32, Int32), y: (Int32, Int32), p: (Int32, Int32)

    @inline(__always)
    func contains(x: Int32, y: Int32, pressure: Int32) -> Bool {
        !(x < self.x.0 || x > self.x.1 || y < self.y.0 || y > self.y.1 || pressure < p.0 || pressure > p.1)
    }
}

extension SampleBounds {
    /// The axes' ranges; any value is inside an axis the device lacks.
    init(x: AxisInfo?, y: AxisInfo?, pressure: AxisInfo?) {
        func range(_ axis: AxisInfo?) -> (Int32, Int32) { axis.map { ($0.minimum, $0.maximum) } ?? (.min, .max) }
        self.init(x: range(x), y: range(y), p: range(pressure))
    }
}

/// Lane 0's share of every row: the checks (ids, slots, which contact holds
/// each slot) in row order, and the frame statistics of the data quality.
final class RowChecks {
    private(set) var slotCount: Int
    /// The contact each slot holds, −1 for none.
    private var holder: UnsafeMutableBufferPointer<Int32>
    /// Pressure each slot holds, and until when its contact is down.
    private var slotPressure: UnsafeMutableBufferPointer<Int32>
    private var slotUntil: UnsafeMutableBufferPointer<Int64>
    /// Slots a contact went down in: the only ones a frame can count.
    private var usedSlots: [Int] = []
    private var frameTime = Int64.min
    private let framesCounted: Bool
    private let file: String, recording: String
    private(set) var multiContactFrames: Int64 = 0
    private(set) var sharedPressureFrames: Int64 = 0

    init(slots: Int, framesCounted: Bool, file: String, recording: String) {
        slotCount = slots
        holder = .allocate(capacity: slots); holder.initialize(repeating: -1)
        slotPressure = .allocate(capacity: slots); slotPressure.initialize(repeating: 0)
        slotUntil = .allocate(capacity: slots); slotUntil.initialize(repeating: .min)
        self.framesCounted = framesCounted
        self.file = file
        self.recording = recording
    }

    deinit {
        holder.deallocate(); slotPressure.deallocate(); slotUntil.deallocate()
    }

    func grow(to slots: Int) {
        guard slots > slotCount else { return }
        func grown<T>(_ buffer: UnsafeMutableBufferPointer<T>, _ fill: T) -> UnsafeMutableBufferPointer<T> {
            let new = UnsafeMutableBufferPointer<T>.allocate(capacity: slots)
            _ = new.moveInitialize(fromContentsOf: buffer)
            UnsafeMutableBufferPointer(rebasing: new[buffer.count...]).initialize(repeating: fill)
            buffer.deallocate()
            return new
        }
        holder = grown(holder, -1); slotPressure = grown(slotPressure, 0); slotUntil = grown(slotUntil, .min)
        slotCount = slots
    }

    private func fail(_ message: String) -> ForceTraceError { ForceTraceError(file: file, "recording '\(recording)': \(message)") }

    /// Ends the last frame (after the last block).
    func endFrame() {
        var counts: (multi: Int64, shared: Int64) = (multiContactFrames, sharedPressureFrames)
        Self.endFrame(frameTime, used: usedSlots, slotUntil: slotUntil, slotPressure: slotPressure, framesCounted: framesCounted,
                      counts: &counts)
        (multiContactFrames, sharedPressureFrames) = counts
    }

    /// A frame with two or more contacts down; shared when their pressures are all equal.
    @inline(__always)
    private static func endFrame(_ frameTime: Int64, used: [Int], slotUntil: UnsafeMutableBufferPointer<Int64>,
                                 slotPressure: UnsafeMutableBufferPointer<Int32>, framesCounted: Bool,
                                 counts: inout (multi: Int64, shared: Int64)) {
        guard framesCounted, frameTime != .min, used.count >= 2 else { return }
        var down = 0, first: Int32 = 0, equal = true
        for index in used where slotUntil[index] > frameTime {
            if down == 0 { first = slotPressure[index] } else if slotPressure[index] != first { equal = false }
            down += 1
        }
        if down >= 2 { counts.multi += 1; if equal { counts.shared += 1 } }
    }

    /// Checks every row of `block` and adds lane 0's rows to their contacts.
    func run(_ block: SampleRows, normalized: UnsafeBufferPointer<Double>, lane: ContactLane, _ setup: LaneSetup) throws {
        let open = lane.open, owner = setup.owner, contacts = setup.results.count
        let targets = lane.curveTargets(setup)
        let holder = self.holder, slotPressure = self.slotPressure, slotUntil = self.slotUntil, slotCount = self.slotCount
        let framesCounted = self.framesCounted
        let times = block.tNs, ids = block.contact, slots = block.slot
        // Locals, written back at the end: no access checks per row.
        var frameTime = self.frameTime, used = usedSlots
        var counts: (multi: Int64, shared: Int64) = (multiContactFrames, sharedPressureFrames)
        var outOfRange: Int64 = 0
        defer {
            self.frameTime = frameTime
            usedSlots = used
            (multiContactFrames, sharedPressureFrames) = counts
            lane.addOutOfRange(outOfRange)
        }
        var index = 0
        while index < block.rows.count {
            let row = block.rows.lowerBound + index
            let id = Int(ids[index])
            guard id >= 0 && id < contacts else { throw fail("samples row \(row) names contact \(id), which the contacts table lacks") }
            let slotIndex = Int(slots[index]) + 1
            // The slots were grown to the block's highest below 2^15 (RowChecks.grow).
            guard slotIndex < slotCount && slotIndex >= 0 else { throw fail("samples row \(row) has slot \(slots[index])") }
            if times[index] != frameTime {
                Self.endFrame(frameTime, used: used, slotUntil: slotUntil, slotPressure: slotPressure, framesCounted: framesCounted,
                              counts: &counts)
                frameTime = times[index]
            }
            if block.flags[index] & SampleFlags.down.rawValue != 0 {
                if holder[slotIndex] >= 0 {
                    throw fail("samples row \(row): contact \(id) goes down in slot \(slots[index]) while contact \(holder[slotIndex]) is still open there")
                }
                holder[slotIndex] = Int32(id)
                if slotUntil[slotIndex] == .min && !used.contains(slotIndex) { used.append(slotIndex) }
                slotUntil[slotIndex] = setup.tUp[id] >= 0 ? setup.tUp[id] : .max
            } else if holder[slotIndex] != Int32(id) {
                throw fail("samples row \(row) continues contact \(id) in slot \(slots[index]), which has no open contact with that id")
            }
            slotPressure[slotIndex] = block.pressure[index]
            if owner[id] == 0 {
                let added = ContactLane.step(block, index, id: id, slotIndex: slotIndex, normalized: normalized, open: open,
                                             targets: targets, lane: lane,
                                             setup, outOfRange: &outOfRange)
                assert(added, "lane 0 refused a row the checks passed")
            }
            if Int64(row) == setup.lastSample[id] { holder[slotIndex] = -1; index += 1; continue }
            index += 1
            // The rows after it that continue the same contact pass every check
            // above, and their frames hold no other contact down: no frame
            // counts, so they go through at once.
            let run = block.run(from: index, id: Int32(id), slot: slots[index - 1], lastSample: setup.lastSample[id])
            guard !run.isEmpty, !framesCounted || Self.othersDown(used, besides: slotIndex, at: frameTime, slotUntil: slotUntil) == 0
            else { continue }
            let last = run.upperBound - 1
            frameTime = times[last]
            slotPressure[slotIndex] = block.pressure[last]
            if owner[id] == 0 {
                ContactLane.stepRun(block, run, id: id, slotIndex: slotIndex, normalized: normalized, open: open, targets: targets,
                                    lane: lane, setup, outOfRange: &outOfRange)
            }
            if Int64(block.rows.lowerBound + last) == setup.lastSample[id] { holder[slotIndex] = -1 }
            index = run.upperBound
        }
    }

    /// How many used slots other than `slot` hold a contact down at `time`.
    /// Zero at a frame's time stays zero at every later frame until a touch-down.
    @inline(__always)
    private static func othersDown(_ used: [Int], besides slot: Int, at time: Int64, slotUntil: UnsafeMutableBufferPointer<Int64>) -> Int {
        var down = 0
        for index in used where index != slot && slotUntil[index] > time { down += 1 }
        return down
    }
}
