// libFuzzer entry point for the SVC2004 signature reader; built by 'make fuzz' together
// with the parser sources (see Fuzz/README.md).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSVC2004(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    ParserFuzzing.svc2004(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}
