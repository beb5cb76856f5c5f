import Foundation

// The contact lanes: the per-contact buffers they share, each lane's open
// contacts, the threads of lanes 1..., and the column views they read.

/// What the lanes share during the samples loop. Each contact's entries
/// (results, curve rows, path) are written only by the lane that owns it.
struct LaneSetup: @unchecked Sendable {
    let contact: OpenContact.Setup
    /// The lane that measures each contact.
    let owner: UnsafeBufferPointer<UInt8>
    let results: UnsafeMutableBufferPointer<ContactStatistics>
    let lastSample: UnsafeBufferPointer<Int64>
    let tUp: UnsafeBufferPointer<Int64>
    let curves: UnsafeMutableBufferPointer<Float>
    /// `AlignedCurves.values`, and where each contact's row starts (`AlignedCurves.starts`).
    let aligned: UnsafeMutableBufferPointer<Float>
    let alignedStarts: UnsafeBufferPointer<Int>
    /// 1 once a contact has begun (written by its lane only).
    let begun: UnsafeMutableBufferPointer<UInt8>
    let paths: UnsafeMutableBufferPointer<ContactPath>
    let bounds: SampleBounds
    let resolution: (x: Double, y: Double)
}

/// The per-contact arrays of the samples loop: those the lanes fill (results,
/// curve matrices, paths, which contacts began) and those they look up (owner,
/// last sample row, t_up). `withLaneSetup` lends them to the lanes as
/// pointers, so that the per-row code checks no bounds and retains nothing.
struct ContactBuffers {
    var results: [ContactStatistics]
    /// The curve matrix, `results.count` rows, and the aligned curves, or empty when not kept (`OpenContact.Setup.keepsMatrices`).
    private(set) var curves: [Float], aligned: AlignedCurves
    private(set) var paths: [ContactPath]
    private var begun: [UInt8]
    private let owner: [UInt8], lastSample: [Int64], tUp: [Int64]

    init(_ table: [Contact], recordingEnd: Int64, laneCount: Int, paths: Bool, setup: OpenContact.Setup) {
        // Plain pages, no MADV_HUGEPAGE: in a VM that hands freed memory back to
        // its host (free page reporting), each fresh huge page waits for the
        // host (Tests/bench/README.md, "Huge pages").
        results = [ContactStatistics](unsafeUninitializedCapacity: table.count) { buffer, count in
            for (index, contact) in table.enumerated() {
                buffer.initializeElement(at: index, to: ContactStatistics(contact, recordingEndNs: recordingEnd))
            }
            count = table.count
        }
        let rows = setup.keepsMatrices ? table.count : 0
        curves = Self.unfilled(rows * setup.curvePoints)
        aligned = setup.keepsMatrices ? AlignedCurves(width: setup.alignedPoints, capacities: results.map(setup.alignedCapacity)) : .empty
        begun = [UInt8](repeating: 0, count: table.count)
        // Lane 0 also checks every row: it takes one id in 2L − 1, the others two each.
        let owner = (0..<table.count).map { UInt8(laneCount == 1 ? 0 : ($0 % (2 * laneCount - 1) + 1) / 2) }
        self.owner = owner
        self.paths = paths ? (0..<min(table.count, ContactPath.contacts)).map { ContactPath(id: Int32($0)) } : []
        lastSample = table.map(\.lastSample)
        tUp = table.map(\.tUpNs)
    }

    /// Room for the curve matrix, not yet written: a row is filled with NaN
    /// where its contact first begins (`ContactLane.noteBegin`, on its lane,
    /// so the lanes share the first touch of the pages), the rest by
    /// `fillUnbegun`. The same values as a matrix filled with NaN up front.
    private static func unfilled(_ count: Int) -> [Float] {
        [Float](unsafeUninitializedCapacity: count) { _, initialized in initialized = count }
    }

    /// NaN in the curve rows of the contacts that never began (no samples);
    /// their aligned rows are NaN from the start.
    mutating func fillUnbegun(curvePoints: Int) {
        guard !curves.isEmpty else { return }
        for id in begun.indices where begun[id] == 0 {
            curves.replaceSubrange((id * curvePoints)..<((id + 1) * curvePoints), with: repeatElement(.nan, count: curvePoints))
        }
    }

    /// Runs `body` with the lanes' view of these arrays; its pointers are valid only during `body`.
    mutating func withLaneSetup<Result>(_ contact: OpenContact.Setup, bounds: SampleBounds, resolution: (x: Double, y: Double),
                                        _ body: (LaneSetup) throws -> Result) rethrows -> Result {
        let alignedStarts = aligned.starts
        return try results.withUnsafeMutableBufferPointer { results in
            try curves.withUnsafeMutableBufferPointer { curves in
                try aligned.values.withUnsafeMutableBufferPointer { aligned in
                    try paths.withUnsafeMutableBufferPointer { paths in
                        try begun.withUnsafeMutableBufferPointer { begun in
                            try owner.withUnsafeBufferPointer { owner in
                                try lastSample.withUnsafeBufferPointer { lastSample in
                                    try tUp.withUnsafeBufferPointer { tUp in
                                        try alignedStarts.withUnsafeBufferPointer { alignedStarts in
                                            try body(LaneSetup(contact: contact, owner: owner, results: results, lastSample: lastSample,
                                                               tUp: tUp, curves: curves, aligned: aligned, alignedStarts: alignedStarts,
                                                               begun: begun, paths: paths, bounds: bounds, resolution: resolution))
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// The curve bands summed from the matrices, row by row (the contacts without a class add nothing).
    func matrixBands(curvePoints: Int, alignedPoints: Int) -> (curve: CurveBands, aligned: CurveBands) {
        var curveBands = CurveBands(points: curvePoints), alignedBands = CurveBands(points: alignedPoints)
        for contact in results {
            guard let pressClass = contact.pressClass else { continue }
            let row = Int(contact.id)
            curveBands.add(curves[(row * curvePoints)..<((row + 1) * curvePoints)], as: pressClass)
            alignedBands.add(aligned.row(row), as: pressClass)
        }
        return (curveBands, alignedBands)
    }
}

/// One lane's open contacts, one per slot, and its count of samples outside the axes' ranges.
final class ContactLane: @unchecked Sendable {
    let index: Int
    private(set) var open: UnsafeMutableBufferPointer<OpenContact>
    /// Set at a row that lane 0's checks refuse: it stops there, and lane 0 throws.
    private(set) var halted = false
    private(set) var outOfRange: Int64 = 0
    /// Without curve matrices: the curve rows of the open contacts, one per slot.
    private(set) var targets: CurveTargets
    /// The bands of the contacts this lane finished.
    private(set) var curveBands: LaneBands, alignedBands: LaneBands
    /// Whether a contact began a second time (its curve rows then differ from what one beginning writes).
    private(set) var reopened = false

    init(index: Int, slots: Int, setup: OpenContact.Setup) {
        self.index = index
        open = .allocate(capacity: slots)
        open.initialize(repeating: OpenContact())
        targets = CurveTargets(slots: setup.keepsMatrices ? 0 : slots, setup)
        curveBands = LaneBands(points: setup.lanesAddBands ? setup.curvePoints : 0)
        alignedBands = LaneBands(points: setup.lanesAddBands ? setup.alignedPoints : 0)
    }

    deinit {
        _ = open.deinitialize()
        open.deallocate()
        targets.curves.deallocate(); targets.aligned.deallocate()
    }

    /// More slots, closed. Only while no lane runs.
    func grow(to slots: Int) {
        guard slots > open.count else { return }
        let grown = UnsafeMutableBufferPointer<OpenContact>.allocate(capacity: slots)
        _ = grown.moveInitialize(fromContentsOf: open)
        UnsafeMutableBufferPointer(rebasing: grown[open.count...]).initialize(repeating: OpenContact())
        open.deallocate()
        open = grown
        targets.grow(to: slots)
    }

    /// The curve rows `OpenContact.hold` writes into: the matrices, or this lane's rows by slot.
    func curveTargets(_ setup: LaneSetup) -> CurveTargets {
        setup.contact.keepsMatrices ? CurveTargets(matrices: setup) : targets
    }

    /// The bands all lanes summed. Integer sums: the same whichever lane added which contact.
    static func bands(of lanes: [ContactLane], curvePoints: Int, alignedPoints: Int) -> (curve: CurveBands, aligned: CurveBands) {
        (lanes.reduce(CurveBands(points: curvePoints)) { $0 + $1.curveBands.bands },
         lanes.reduce(CurveBands(points: alignedPoints)) { $0 + $1.alignedBands.bands })
    }

    /// Marks contact `id` begun; a second beginning is remembered.
    @inline(never)
    func noteBegin(_ id: Int, _ setup: LaneSetup) {
        if setup.begun[id] != 0 {
            reopened = true
        } else if setup.contact.keepsMatrices {
            // The curve matrix starts unwritten (`ContactBuffers.unfilled`).
            let curvePoints = setup.contact.curvePoints
            UnsafeMutableBufferPointer(rebasing: setup.curves[(id * curvePoints)..<((id + 1) * curvePoints)]).initialize(repeating: .nan)
        }
        setup.begun[id] = 1
    }

    /// Finishes the contact open in `slotIndex` and adds its curves to this lane's bands.
    func finish(slotIndex: Int, _ setup: LaneSetup) -> ContactStatistics {
        let targets = curveTargets(setup)
        let contact = open[slotIndex].finish(setup: setup.contact, resolution: setup.resolution,
                                             curve: targets.curves, aligned: targets.aligned)
        if setup.contact.lanesAddBands, let pressClass = contact.pressClass {
            let curveBase = open[slotIndex].curveBase, alignedBase = open[slotIndex].alignedBase
            // Every curve point is written by now; aligned points from the contact's end on stay NaN (not written).
            curveBands.add(UnsafeBufferPointer(rebasing: targets.curves[curveBase..<(curveBase + setup.contact.curvePoints)]), as: pressClass)
            alignedBands.add(UnsafeBufferPointer(rebasing: targets.aligned[alignedBase..<(alignedBase + open[slotIndex].nextAligned)]),
                             as: pressClass)
        }
        return contact
    }

    /// The rows of `block` whose contacts this lane owns (lanes other than 0).
    func run(_ block: SampleRows, normalized: UnsafeBufferPointer<Double>, _ setup: LaneSetup) {
        guard !halted else { return }
        let open = self.open, owner = setup.owner, lane = UInt8(index), contacts = setup.results.count
        let targets = curveTargets(setup)
        var outOfRange = self.outOfRange
        var completed = true
        var index = 0
        while index < block.rows.count {
            let id = Int(block.contact[index])
            // Lane 0 throws for this row, or an earlier one.
            guard id >= 0 && id < contacts else { completed = false; break }
            guard owner[id] == lane else { index += 1; continue }
            let slotIndex = Int(block.slot[index]) + 1
            guard slotIndex >= 0 && slotIndex < open.count,
                  Self.step(block, index, id: id, slotIndex: slotIndex, normalized: normalized, open: open,
                            targets: targets, lane: self, setup, outOfRange: &outOfRange) else {
                completed = false
                break
            }
            index += 1
            // The rows after it that continue the same contact: lane 0 passes them all.
            let run = block.run(from: index, id: Int32(id), slot: block.slot[index - 1], lastSample: setup.lastSample[id])
            if !run.isEmpty {
                Self.stepRun(block, run, id: id, slotIndex: slotIndex, normalized: normalized, open: open, targets: targets,
                             lane: self, setup, outOfRange: &outOfRange)
                index = run.upperBound
            }
        }
        self.outOfRange = outOfRange
        if !completed { halted = true }
    }

    /// Adds row `index` to contact `id`; false when the row does not continue
    /// what the slot holds (lane 0 refuses such a row first).
    @inline(__always)
    static func step(_ block: SampleRows, _ index: Int, id: Int, slotIndex: Int, normalized: UnsafeBufferPointer<Double>,
                     open: UnsafeMutableBufferPointer<OpenContact>, targets: CurveTargets, lane: ContactLane,
                     _ setup: LaneSetup, outOfRange: inout Int64) -> Bool {
        if block.flags[index] & SampleFlags.down.rawValue != 0 {
            if open[slotIndex].isOpen { return false }
            lane.noteBegin(id, setup)
            // The contact's rows: by id in the matrix and the aligned curves, by slot in the lane's own rows.
            let keeps = setup.contact.keepsMatrices
            open[slotIndex].begin(setup.results[id], curveBase: (keeps ? id : slotIndex) * setup.contact.curvePoints,
                                  alignedBase: keeps ? setup.alignedStarts[id] : slotIndex * setup.contact.alignedPoints, setup: setup.contact)
        } else if !open[slotIndex].isOpen || open[slotIndex].id != Int32(id) {
            return false
        }
        stepRun(block, index..<(index + 1), id: id, slotIndex: slotIndex, normalized: normalized, open: open, targets: targets,
                lane: lane, setup, outOfRange: &outOfRange)
        return true
    }
}

extension ContactLane {
    func addOutOfRange(_ count: Int64) { outOfRange += count }

    /// Adds the rows `run` to the contact open in `slotIndex`: a row `step`
    /// checked (its touch-down, begun there, or a row that continues it), or
    /// the rows after one (`SampleRows.run`). Finishes the contact when the
    /// run ends at its last sample.
    @inline(__always)
    static func stepRun(_ block: SampleRows, _ run: Range<Int>, id: Int, slotIndex: Int, normalized: UnsafeBufferPointer<Double>,
                        open: UnsafeMutableBufferPointer<OpenContact>, targets: CurveTargets, lane: ContactLane,
                        _ setup: LaneSetup, outOfRange: inout Int64) {
        let bounds = setup.bounds
        var outside: Int64 = 0
        for index in run where !bounds.contains(x: block.x[index], y: block.y[index], pressure: block.pressure[index]) { outside += 1 }
        outOfRange += outside
        if id < setup.paths.count {
            for index in run where setup.paths[id].x.count < ContactPath.points {
                setup.paths[id].x.append(block.x[index]); setup.paths[id].y.append(block.y[index])
                setup.paths[id].pressure.append(Float(normalized[index]))
            }
        }
        var rest = run
        if let first = run.first, block.flags[first] & SampleFlags.down.rawValue != 0 {
            open[slotIndex].addDown(time: block.tNs[first], x: block.x[first], y: block.y[first], pressure: block.pressure[first],
                                    normalized: normalized[first], setup: setup.contact, curve: targets.curves, aligned: targets.aligned)
            rest = (first + 1)..<run.upperBound
        }
        open[slotIndex].addRun(block, rest, normalized: normalized, setup: setup.contact, curve: targets.curves, aligned: targets.aligned)
        if Int64(block.rows.lowerBound + run.upperBound - 1) == setup.lastSample[id] {
            setup.results[id] = lane.finish(slotIndex: slotIndex, setup)
        }
    }
}

extension SampleRows {
    /// The rows from `start` on that continue contact `id` in the same slot
    /// as row `start − 1` did (no touch-down among them), up to and including
    /// its last sample row `lastSample`: the rows that continue the contact
    /// that row left open, checked as one.
    @inline(__always)
    func run(from start: Int, id: Int32, slot wanted: Int16, lastSample: Int64) -> Range<Int> {
        let limit = Swift.min(rows.count, Int(Swift.max(lastSample - Int64(rows.lowerBound) + 1, Int64(start))))
        var end = start
        while end < limit && contact[end] == id && slot[end] == wanted && flags[end] & SampleFlags.down.rawValue == 0 { end += 1 }
        return start..<end
    }
}

/// The threads of lanes 1...: each block is handed to all of them at once,
/// and `wait` returns when every one is done with it (the block's buffers
/// are only valid until then).
final class LaneWorkers: @unchecked Sendable {
    private let lanes: [ContactLane]
    private let setup: LaneSetup
    private let state = NSCondition()
    private var block: SampleRows?
    private var normalized = UnsafeBufferPointer<Double>(start: nil, count: 0)
    private var generation = 0
    private var pending = 0
    private var running = 0
    private var stopping = false

    init(_ lanes: [ContactLane], setup: LaneSetup) {
        self.lanes = lanes
        self.setup = setup
        running = lanes.count
        for lane in lanes {
            let thread = Thread { [self] in work(lane) }
            thread.name = "forcetrace.analysis-lane"
            thread.start()
        }
    }

    func start(_ block: SampleRows, normalized: UnsafeBufferPointer<Double>) {
        guard !lanes.isEmpty else { return }
        state.lock()
        self.block = block
        self.normalized = normalized
        generation += 1
        pending = lanes.count
        state.broadcast()
        state.unlock()
    }

    func wait() {
        guard !lanes.isEmpty else { return }
        state.lock()
        while pending > 0 { state.wait() }
        block = nil
        state.unlock()
    }

    /// Stops the threads and waits until they have left.
    func finish() {
        state.lock()
        stopping = true
        state.broadcast()
        while running > 0 { state.wait() }
        state.unlock()
    }

    private func work(_ lane: ContactLane) {
        var seen = 0
        state.lock()
        while true {
            while !stopping && generation == seen { state.wait() }
            if stopping { break }
            seen = generation
            let block = self.block!, normalized = self.normalized
            state.unlock()
            lane.run(block, normalized: normalized, setup)
            state.lock()
            pending -= 1
            if pending == 0 { state.broadcast() }
        }
        running -= 1
        state.broadcast()
        state.unlock()
    }
}

/// The samples columns the analysis reads, found by name once per block
/// (`SampleBuffers`), for the per-row loops.
struct SampleRows {
    let rows: Range<Int>
    let tNs: UnsafeBufferPointer<Int64>
    let contact: UnsafeBufferPointer<Int32>
    let slot: UnsafeBufferPointer<Int16>
    let x: UnsafeBufferPointer<Int32>
    let y: UnsafeBufferPointer<Int32>
    let pressure: UnsafeBufferPointer<Int32>
    let flags: UnsafeBufferPointer<UInt8>

    init(_ block: SampleBuffers) {
        typealias S = TraceSchema.Samples
        self.init(rows: block.rows, tNs: block[S.tNs], contact: block[S.contact], slot: block[S.slot], x: block[S.x], y: block[S.y],
                  pressure: block[S.pressure], flags: block[S.flags])
    }

    init(rows: Range<Int>, tNs: UnsafeBufferPointer<Int64>, contact: UnsafeBufferPointer<Int32>, slot: UnsafeBufferPointer<Int16>,
         x: UnsafeBufferPointer<Int32>, y: UnsafeBufferPointer<Int32>, pressure: UnsafeBufferPointer<Int32>,
         flags: UnsafeBufferPointer<UInt8>) {
        self.rows = rows
        self.tNs = tNs; self.contact = contact; self.slot = slot
        self.x = x; self.y = y; self.pressure = pressure; self.flags = flags
    }
}

/// The curve rows `OpenContact.hold` writes into: the matrices (by contact
/// id), or a lane's own rows, one per slot, when no matrix is kept.
struct CurveTargets {
    var curves: UnsafeMutableBufferPointer<Float>
    var aligned: UnsafeMutableBufferPointer<Float>
    private let curvePoints: Int, alignedPoints: Int
    /// Whether the rows are a lane's (allocated here), not the matrices.
    let ownedBySlot: Bool

    init(matrices setup: LaneSetup) {
        curves = setup.curves
        aligned = setup.aligned
        curvePoints = setup.contact.curvePoints
        alignedPoints = setup.contact.alignedPoints
        ownedBySlot = false
    }

    /// `slots` rows of each (the lane deallocates them); none when 0, for a lane that writes the matrices.
    init(slots: Int, _ setup: OpenContact.Setup) {
        curvePoints = setup.curvePoints
        alignedPoints = setup.alignedPoints
        ownedBySlot = slots > 0
        curves = .allocate(capacity: slots * curvePoints)
        aligned = .allocate(capacity: slots * alignedPoints)
    }

    /// More slots' rows, keeping the open contacts' rows where they are.
    mutating func grow(to slots: Int) {
        guard ownedBySlot else { return }
        func grown(_ buffer: UnsafeMutableBufferPointer<Float>, _ points: Int) -> UnsafeMutableBufferPointer<Float> {
            let new = UnsafeMutableBufferPointer<Float>.allocate(capacity: slots * points)
            _ = new.initialize(fromContentsOf: buffer)
            buffer.deallocate()
            return new
        }
        curves = grown(curves, curvePoints)
        aligned = grown(aligned, alignedPoints)
    }
}
