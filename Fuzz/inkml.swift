// libFuzzer entry point for the InkML reader; built by 'make fuzz' together
// with the parser sources (see Fuzz/README.md).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzInkML(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    ParserFuzzing.inkml(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}
