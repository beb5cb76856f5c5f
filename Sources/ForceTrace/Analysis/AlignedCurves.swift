/// Each contact's touch-down-aligned curve (normalized pressure held at
/// `t_down + j · step`), only its grid points before the contact's end, one
/// contact after another: the ragged layout `--save` stores (docs/ANALYSIS.md,
/// "The --save file"). A matrix of `width` points per contact is mostly the
/// NaN after each end; this holds none of it.
public struct AlignedCurves: Sendable, Equatable {
    /// Grid points per contact (`AnalysisOptions.alignedPoints`).
    public let width: Int
    /// Contact c's points are `values[starts[c]..<starts[c + 1]]`.
    public private(set) var starts: [Int]
    public internal(set) var values: [Float]

    public var rows: Int { starts.count - 1 }

    /// No rows: an analysis that keeps no curves.
    public static let empty = AlignedCurves(width: 0, capacities: [])

    /// Room for rows of `capacities` points, NaN until written.
    init(width: Int, capacities: [Int]) {
        self.width = width
        var starts = [0]
        starts.reserveCapacity(capacities.count + 1)
        for capacity in capacities { starts.append(starts[starts.count - 1] + capacity) }
        self.starts = starts
        values = [Float](repeating: .nan, count: starts[starts.count - 1])
    }

    /// The rows of a `rows × width` matrix, each up to its last value (`trimmed`).
    public init(matrix: [Float], rows: Int, width: Int) {
        precondition(matrix.count == rows * width, "the matrix is rows × width")
        self.init(width: width, starts: (0...rows).map { $0 * width }, values: matrix)
        self = trimmed()
    }

    private init(width: Int, starts: [Int], values: [Float]) {
        self.width = width
        self.starts = starts
        self.values = values
    }

    /// Each row up to its last value: a row's points before its NaN tail (a
    /// contact without samples or without pressure keeps none). The same
    /// curves, sharing their storage, when no row has a tail.
    public func trimmed() -> AlignedCurves {
        var points = [Int](repeating: 0, count: rows)
        var whole = true
        values.withUnsafeBufferPointer { values in
            for row in 0..<rows {
                let room = UnsafeBufferPointer(rebasing: values[starts[row]..<starts[row + 1]])
                points[row] = Self.pointsBeforeTail(room)
                whole = whole && points[row] == room.count
            }
        }
        guard !whole else { return self }
        var keptStarts = [0], kept: [Float] = []
        keptStarts.reserveCapacity(rows + 1)
        for row in 0..<rows {
            kept += values[starts[row]..<(starts[row] + points[row])]
            keptStarts.append(kept.count)
        }
        return AlignedCurves(width: width, starts: keptStarts, values: kept)
    }

    public func row(_ index: Int) -> ArraySlice<Float> { values[starts[index]..<starts[index + 1]] }

    /// The `rows × width` matrix, NaN after each row's points.
    public var matrix: [Float] {
        var matrix = [Float](repeating: .nan, count: rows * width)
        for index in 0..<rows {
            matrix.replaceSubrange((index * width)..<(index * width + starts[index + 1] - starts[index]), with: row(index))
        }
        return matrix
    }

    /// The grid points `t_down + j · step`, j in 0..<width, before `end`: a
    /// contact's room on the grid (`OpenContact.hold` writes no point at or
    /// after its end).
    static func capacity(tDown: Int64, end: Int64, step: Int64, width: Int) -> Int {
        guard end > tDown, width > 0 else { return 0 }
        let (span, overflow) = end.subtractingReportingOverflow(tDown)
        guard step > 0, !overflow else { return width }
        // The points j·step < end − t_down: ⌈(end − t_down) / step⌉, at most width.
        return Int(min(Int64(width), (span - 1) / step + 1))
    }

    /// The points of `row` before its NaN tail. The tail is most of a
    /// matrix row, so it is stepped over eight points at a time.
    static func pointsBeforeTail(_ row: UnsafeBufferPointer<Float>) -> Int {
        var end = row.count
        while end % 8 != 0 {
            guard row[end - 1].isNaN else { return end }
            end -= 1
        }
        while end >= 8 {
            let block = UnsafeRawPointer(row.baseAddress!).loadUnaligned(fromByteOffset: (end - 8) * MemoryLayout<Float>.stride, as: SIMD8<Float>.self)
            // NaN is the one value unequal to itself.
            guard all(block .!= block) else { break }
            end -= 8
        }
        while end > 0, row[end - 1].isNaN { end -= 1 }
        return end
    }
}
