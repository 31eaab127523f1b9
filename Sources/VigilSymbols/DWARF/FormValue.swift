/// An attribute value as encoded, before interpretation: its form and the number read (an
/// address, constant, index, offset, or for inline strings the string's offset in `.debug_info`).
struct FormValue {
    var form: UInt64
    var value: UInt64
    /// `DW_FORM_LLVM_addrx_offset`'s offset.
    var extra: UInt64 = 0

    /// The encoded size of `form`'s values when fixed, -1 when variable (LEB128, strings,
    /// blocks, indirect), -2 when the form is unknown (its size cannot be known).
    static func fixedSize(form: UInt64, addressSize: Int, offsetSize: Int, version: UInt16) -> Int {
        switch form {
        case DW.formAddr: return addressSize
        case DW.formData1, DW.formRef1, DW.formFlag, DW.formStrx1, DW.formAddrx1: return 1
        case DW.formData2, DW.formRef2, DW.formStrx2, DW.formAddrx2: return 2
        case DW.formStrx3, DW.formAddrx3: return 3
        case DW.formData4, DW.formRef4, DW.formRefSup4, DW.formStrx4, DW.formAddrx4: return 4
        case DW.formData8, DW.formRef8, DW.formRefSig8, DW.formRefSup8: return 8
        case DW.formData16: return 16
        case DW.formStrp, DW.formSecOffset, DW.formLineStrp, DW.formStrpSup, DW.formGNURefAlt, DW.formGNUStrpAlt:
            return offsetSize
        case DW.formRefAddr: return version <= 2 ? addressSize : offsetSize
        case DW.formFlagPresent, DW.formImplicitConst: return 0
        case DW.formString, DW.formBlock, DW.formBlock1, DW.formBlock2, DW.formBlock4, DW.formExprloc,
             DW.formSdata, DW.formUdata, DW.formRefUdata, DW.formStrx, DW.formAddrx, DW.formLoclistx,
             DW.formRnglistx, DW.formIndirect, DW.formGNUAddrIndex, DW.formGNUStrIndex, DW.formLLVMAddrxOffset:
            return -1
        default: return -2
        }
    }

    /// Reads a value of `form` (resolving `DW_FORM_indirect`).
    static func read(form initialForm: UInt64, implicitConstant: Int64, reader: inout ByteReader,
                     addressSize: Int, offsetSize: Int, version: UInt16) throws(SymbolsError) -> FormValue {
        var form = initialForm
        while form == DW.formIndirect {
            form = try reader.uleb("DW_FORM_indirect form")
            if form == DW.formImplicitConst {
                throw reader.error(.malformed, "DW_FORM_indirect names DW_FORM_implicit_const, which has no value here")
            }
        }
        switch form {
        case DW.formAddr: return FormValue(form: form, value: try reader.unsigned(size: addressSize, "DW_FORM_addr"))
        case DW.formData1, DW.formRef1, DW.formFlag, DW.formStrx1, DW.formAddrx1:
            return FormValue(form: form, value: UInt64(try reader.u8("1-byte attribute")))
        case DW.formData2, DW.formRef2, DW.formStrx2, DW.formAddrx2:
            return FormValue(form: form, value: UInt64(try reader.u16("2-byte attribute")))
        case DW.formStrx3, DW.formAddrx3:
            return FormValue(form: form, value: UInt64(try reader.u24("3-byte attribute")))
        case DW.formData4, DW.formRef4, DW.formRefSup4, DW.formStrx4, DW.formAddrx4:
            return FormValue(form: form, value: UInt64(try reader.u32("4-byte attribute")))
        case DW.formData8, DW.formRef8, DW.formRefSig8, DW.formRefSup8:
            return FormValue(form: form, value: try reader.u64("8-byte attribute"))
        case DW.formData16:
            try reader.skip(16, "DW_FORM_data16")
            return FormValue(form: form, value: 0)
        case DW.formStrp, DW.formSecOffset, DW.formLineStrp, DW.formStrpSup, DW.formGNURefAlt, DW.formGNUStrpAlt:
            return FormValue(form: form, value: try reader.unsigned(size: offsetSize, "section offset"))
        case DW.formRefAddr:
            return FormValue(form: form, value: try reader.unsigned(size: version <= 2 ? addressSize : offsetSize, "DW_FORM_ref_addr"))
        case DW.formFlagPresent: return FormValue(form: form, value: 1)
        case DW.formImplicitConst: return FormValue(form: form, value: UInt64(bitPattern: implicitConstant))
        case DW.formString:
            let start = reader.offset
            _ = try reader.cString("DW_FORM_string")
            return FormValue(form: form, value: UInt64(start))
        case DW.formBlock, DW.formExprloc:
            let length = try reader.uleb("block length")
            guard length <= UInt64(reader.remaining) else { throw reader.truncated("block", needs: Int(clamping: length)) }
            try reader.skip(Int(length), "block")
            return FormValue(form: form, value: length)
        case DW.formBlock1:
            let length = Int(try reader.u8("block1 length"))
            try reader.skip(length, "block1")
            return FormValue(form: form, value: UInt64(length))
        case DW.formBlock2:
            let length = Int(try reader.u16("block2 length"))
            try reader.skip(length, "block2")
            return FormValue(form: form, value: UInt64(length))
        case DW.formBlock4:
            let length = Int(try reader.u32("block4 length"))
            try reader.skip(length, "block4")
            return FormValue(form: form, value: UInt64(length))
        case DW.formSdata: return FormValue(form: form, value: UInt64(bitPattern: try reader.sleb("DW_FORM_sdata")))
        case DW.formUdata, DW.formRefUdata, DW.formStrx, DW.formAddrx, DW.formLoclistx, DW.formRnglistx,
             DW.formGNUAddrIndex, DW.formGNUStrIndex:
            return FormValue(form: form, value: try reader.uleb("LEB128 attribute"))
        case DW.formLLVMAddrxOffset:
            let index = try reader.uleb("DW_FORM_LLVM_addrx_offset index")
            let offset = UInt64(try reader.u32("DW_FORM_LLVM_addrx_offset offset"))
            return FormValue(form: form, value: index, extra: offset)
        default:
            throw reader.error(.unsupported, "unknown \(DW.formName(form)); its size is unknown, so the rest of the unit cannot be read")
        }
    }

    /// Skips a value of `form` without keeping it.
    @inline(__always)
    static func skip(form: UInt64, reader: inout ByteReader, addressSize: Int, offsetSize: Int, version: UInt16) throws(SymbolsError) {
        let size = fixedSize(form: form, addressSize: addressSize, offsetSize: offsetSize, version: version)
        if size >= 0 {
            try reader.skip(size, "attribute value")
            return
        }
        switch form {
        case DW.formUdata, DW.formRefUdata, DW.formStrx, DW.formAddrx, DW.formLoclistx, DW.formRnglistx,
             DW.formGNUAddrIndex, DW.formGNUStrIndex:
            _ = try reader.uleb("LEB128 attribute")
        case DW.formSdata:
            _ = try reader.sleb("DW_FORM_sdata")
        case DW.formString:
            guard let end = ByteReader.nulIndex(in: reader.buffer, from: reader.offset) else {
                throw reader.error(.truncated, "DW_FORM_string has no terminating NUL")
            }
            reader.offset = end + 1
        default:
            _ = try read(form: form, implicitConstant: 0, reader: &reader, addressSize: addressSize, offsetSize: offsetSize, version: version)
        }
    }

    /// The value as an unsigned constant (data forms, udata, non-negative sdata, implicit_const).
    var unsignedConstant: UInt64? {
        switch form {
        case DW.formData1, DW.formData2, DW.formData4, DW.formData8, DW.formUdata: return value
        case DW.formSdata, DW.formImplicitConst: return Int64(bitPattern: value) >= 0 ? value : nil
        default: return nil
        }
    }

    /// Whether the value is an address form (addr or an index into `.debug_addr`).
    var isAddressForm: Bool {
        switch form {
        case DW.formAddr, DW.formAddrx, DW.formAddrx1, DW.formAddrx2, DW.formAddrx3, DW.formAddrx4,
             DW.formGNUAddrIndex, DW.formLLVMAddrxOffset: return true
        default: return false
        }
    }

    /// The value as a section offset (sec_offset, and data4/data8 in DWARF 2 and 3).
    func sectionOffset(version: UInt16) -> UInt64? {
        switch form {
        case DW.formSecOffset: return value
        case DW.formData4, DW.formData8: return version <= 3 ? value : nil
        default: return nil
        }
    }
}
