extension ThresholdBins {
    /// `ThresholdBins.bin(Double(value))` for a `Float` curve value, by
    /// table instead of a multiplication, a conversion and two searches: the
    /// lanes bin every curve point of every contact.
    ///
    /// For floats that are not negative, value order is the order of their
    /// bits. So each edge j/100 becomes the bits of the least float whose
    /// double reaches it, and a float's bin is the number of those at or
    /// below its bits. A table by the top 15 bits (sign, exponent and six
    /// bits of mantissa) gives the bin at the start of each bucket below
    /// 1.0; a bucket is at most 1/128 wide there, narrower than a bin, so
    /// one comparison with the next edge finishes it.
    struct FloatTable {
        static let shift: UInt32 = 17
        /// The bits of 1.0: every float from here up is in the last bin.
        static let oneBits = Float(1).bitPattern
        /// For j = 0...steps, the bits of the least float ≥ 0 whose double is
        /// at least `threshold(j)`; then `UInt32.max`, which nothing reaches.
        let edgeBits: [UInt32]
        /// The bin of each bucket's first float, for the buckets below 1.0.
        let bucketBins: [UInt8]

        static let shared = FloatTable()

        init() {
            var edgeBits = (0...steps).map { index -> UInt32 in
                let edge = threshold(index)
                var float = Float(edge)
                while Double(float) < edge { float = float.nextUp }
                while float > 0 && Double(float.nextDown) >= edge { float = float.nextDown }
                return float.bitPattern
            }
            edgeBits.append(.max)
            let buckets = Int(Self.oneBits >> Self.shift)
            var bucketBins = [UInt8](repeating: 0, count: buckets)
            var bin = 0
            for bucket in 0..<buckets {
                let first = UInt32(bucket) << Self.shift, last = first | ((1 << Self.shift) - 1)
                while edgeBits[bin + 1] <= first { bin += 1 }
                // One more edge inside the bucket at most: `bin` compares with it.
                precondition(edgeBits[bin + 2] > last, "a threshold bucket holds two edges")
                bucketBins[bucket] = UInt8(bin)
            }
            self.edgeBits = edgeBits
            self.bucketBins = bucketBins
        }

        /// Runs `body` with the tables as pointers: no checks per value.
        func withTables<Result>(_ body: (_ edgeBits: UnsafePointer<UInt32>, _ bucketBins: UnsafePointer<UInt8>) -> Result) -> Result {
            edgeBits.withUnsafeBufferPointer { edges in
                bucketBins.withUnsafeBufferPointer { buckets in body(edges.baseAddress!, buckets.baseAddress!) }
            }
        }

        /// The bin of `value` (NaN in bin 0, as `ThresholdBins.bin` puts it).
        @inline(__always)
        static func bin(_ value: Float, edgeBits: UnsafePointer<UInt32>, bucketBins: UnsafePointer<UInt8>) -> Int {
            let bits = value.bitPattern
            // Negative numbers and −0 are below every edge but the first.
            if bits >= oneBits { return bits & 0x8000_0000 != 0 || value.isNaN ? 0 : steps }
            let bin = Int(bucketBins[Int(bits >> shift)])
            return bits >= edgeBits[bin + 1] ? bin + 1 : bin
        }
    }
}
