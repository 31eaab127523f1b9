/// The DWARF numbers this reader acts on (DWARF 5 §7, plus GNU, LLVM and Apple extensions).
/// Everything else is skipped by its form, so unknown attributes cost nothing.
enum DW {
    // Tags.
    static let tagCompileUnit: UInt64 = 0x11
    static let tagPartialUnit: UInt64 = 0x3c
    static let tagSkeletonUnit: UInt64 = 0x4a
    static let tagSubprogram: UInt64 = 0x2e
    static let tagInlinedSubroutine: UInt64 = 0x1d

    // Attributes.
    static let atName: UInt64 = 0x03
    static let atStmtList: UInt64 = 0x10
    static let atLowPC: UInt64 = 0x11
    static let atHighPC: UInt64 = 0x12
    static let atCompDir: UInt64 = 0x1b
    static let atAbstractOrigin: UInt64 = 0x31
    static let atSpecification: UInt64 = 0x47
    static let atEntryPC: UInt64 = 0x52
    static let atRanges: UInt64 = 0x55
    static let atCallFile: UInt64 = 0x58
    static let atCallLine: UInt64 = 0x59
    static let atLinkageName: UInt64 = 0x6e
    static let atStrOffsetsBase: UInt64 = 0x72
    static let atAddrBase: UInt64 = 0x73
    static let atRnglistsBase: UInt64 = 0x74
    static let atMIPSLinkageName: UInt64 = 0x2007
    static let atGNUAddrBase: UInt64 = 0x2133

    // Forms.
    static let formAddr: UInt64 = 0x01
    static let formBlock2: UInt64 = 0x03
    static let formBlock4: UInt64 = 0x04
    static let formData2: UInt64 = 0x05
    static let formData4: UInt64 = 0x06
    static let formData8: UInt64 = 0x07
    static let formString: UInt64 = 0x08
    static let formBlock: UInt64 = 0x09
    static let formBlock1: UInt64 = 0x0a
    static let formData1: UInt64 = 0x0b
    static let formFlag: UInt64 = 0x0c
    static let formSdata: UInt64 = 0x0d
    static let formStrp: UInt64 = 0x0e
    static let formUdata: UInt64 = 0x0f
    static let formRefAddr: UInt64 = 0x10
    static let formRef1: UInt64 = 0x11
    static let formRef2: UInt64 = 0x12
    static let formRef4: UInt64 = 0x13
    static let formRef8: UInt64 = 0x14
    static let formRefUdata: UInt64 = 0x15
    static let formIndirect: UInt64 = 0x16
    static let formSecOffset: UInt64 = 0x17
    static let formExprloc: UInt64 = 0x18
    static let formFlagPresent: UInt64 = 0x19
    static let formStrx: UInt64 = 0x1a
    static let formAddrx: UInt64 = 0x1b
    static let formRefSup4: UInt64 = 0x1c
    static let formStrpSup: UInt64 = 0x1d
    static let formData16: UInt64 = 0x1e
    static let formLineStrp: UInt64 = 0x1f
    static let formRefSig8: UInt64 = 0x20
    static let formImplicitConst: UInt64 = 0x21
    static let formLoclistx: UInt64 = 0x22
    static let formRnglistx: UInt64 = 0x23
    static let formRefSup8: UInt64 = 0x24
    static let formStrx1: UInt64 = 0x25
    static let formStrx2: UInt64 = 0x26
    static let formStrx3: UInt64 = 0x27
    static let formStrx4: UInt64 = 0x28
    static let formAddrx1: UInt64 = 0x29
    static let formAddrx2: UInt64 = 0x2a
    static let formAddrx3: UInt64 = 0x2b
    static let formAddrx4: UInt64 = 0x2c
    static let formGNUAddrIndex: UInt64 = 0x1f01
    static let formGNUStrIndex: UInt64 = 0x1f02
    static let formGNURefAlt: UInt64 = 0x1f20
    static let formGNUStrpAlt: UInt64 = 0x1f21
    static let formLLVMAddrxOffset: UInt64 = 0x2001

    // Unit types (DWARF 5).
    static let unitCompile: UInt8 = 0x01
    static let unitType: UInt8 = 0x02
    static let unitPartial: UInt8 = 0x03
    static let unitSkeleton: UInt8 = 0x04
    static let unitSplitCompile: UInt8 = 0x05
    static let unitSplitType: UInt8 = 0x06

    // Line number content types (DWARF 5 file and directory tables).
    static let lnctPath: UInt64 = 0x1
    static let lnctDirectoryIndex: UInt64 = 0x2

    // Range list entries (DWARF 5).
    static let rleEndOfList: UInt8 = 0
    static let rleBaseAddressx: UInt8 = 1
    static let rleStartxEndx: UInt8 = 2
    static let rleStartxLength: UInt8 = 3
    static let rleOffsetPair: UInt8 = 4
    static let rleBaseAddress: UInt8 = 5
    static let rleStartEnd: UInt8 = 6
    static let rleStartLength: UInt8 = 7

    /// A form's name for error messages.
    static func formName(_ form: UInt64) -> String { "DW_FORM 0x\(String(form, radix: 16))" }
}
