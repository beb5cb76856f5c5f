// libFuzzer entry point for the browser capture reader (JSON, then the
// described devices); built by 'make fuzz' together with the parser sources
// (see Fuzz/README.md).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBrowser(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    ParserFuzzing.browser(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}
