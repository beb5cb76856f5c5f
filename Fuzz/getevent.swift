// libFuzzer entry point for the getevent reader; built by 'make fuzz' together
// with the parser sources (see Fuzz/README.md).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGetevent(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    ParserFuzzing.getevent(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}
