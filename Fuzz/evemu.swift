// libFuzzer entry point for the evemu parser; built by 'make fuzz' together
// with the parser sources (see Fuzz/README.md).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEvemu(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    ParserFuzzing.evemu(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}
