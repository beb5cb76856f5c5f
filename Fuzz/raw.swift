// libFuzzer entry point for the raw parser; built by 'make fuzz' together
// with the parser sources (see Fuzz/README.md).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRaw(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    ParserFuzzing.raw(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}
