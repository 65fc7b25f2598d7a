import CFFI
import CKeyboardABI

/// One selector of the principal class, ready to call through libffi: the
/// call description (ffi_cif) is prepared once, at load, from the selector's
/// type encoding, and reused for every call.
package final class PreparedSelector {
    package let name: String
    package let types: String
    let entry: UnsafePointer<kbh_selector_v1>
    private let imp: @convention(c) () -> Void
    private let cif: UnsafeMutablePointer<ffi_cif>
    // libffi keeps a pointer to this array: it lives exactly as long as the cif.
    private let argumentTypes: UnsafeMutablePointer<UnsafeMutablePointer<ffi_type>?>
    package let argumentCount: Int
    /// The argument pointer array handed to ffi_call, reused by every call (one thread calls a runtime).
    private let values: UnsafeMutablePointer<UnsafeMutableRawPointer?>

    enum EncodingError: Error {
        case unknownType(Character)
        case empty
    }

    init(entry: UnsafePointer<kbh_selector_v1>, name: String, types: String) throws {
        self.entry = entry
        self.name = name
        self.types = types
        self.imp = unsafeBitCast(entry.pointee.imp!, to: (@convention(c) () -> Void).self)
        let characters = Array(types)
        guard let first = characters.first else { throw EncodingError.empty }
        let returnType = try PreparedSelector.ffiType(first)
        let arguments = try characters.dropFirst().map(PreparedSelector.ffiType)
        argumentCount = arguments.count
        values = .allocate(capacity: max(arguments.count, 2))
        argumentTypes = .allocate(capacity: max(arguments.count, 1))
        for (i, t) in arguments.enumerated() { argumentTypes[i] = t }
        cif = .allocate(capacity: 1)
        let status = ffi_prep_cif(cif, kbffi_default_abi(), UInt32(arguments.count), returnType, argumentTypes)
        precondition(status == FFI_OK, "ffi_prep_cif failed for \(types)")
    }

    static func ffiType(_ c: Character) throws -> UnsafeMutablePointer<ffi_type> {
        switch c {
        case "v": kbffi_type_void()
        case "@", ":", "*", "^": kbffi_type_pointer()
        case "B", "c", "C": kbffi_type_uint8()
        case "i": kbffi_type_sint32()
        case "q": kbffi_type_sint64()
        case "d": kbffi_type_double()
        default: throw EncodingError.unknownType(c)
        }
    }

    /// Calls the selector with the instance, the selector itself, and then
    /// `arguments`: pointers to each further argument's value, as libffi takes them.
    /// The pointers need only live for the duration of the call.
    package func call(instance: UnsafeMutableRawPointer, arguments: UnsafeMutableRawPointer?...) {
        precondition(arguments.count == argumentCount - 2, "\(name) takes \(argumentCount - 2) arguments after _cmd")
        var object: UnsafeMutableRawPointer? = instance
        var selector: UnsafeRawPointer? = UnsafeRawPointer(entry)
        withUnsafeMutablePointer(to: &object) { objectPointer in
            withUnsafeMutablePointer(to: &selector) { selectorPointer in
                values[0] = UnsafeMutableRawPointer(objectPointer)
                values[1] = UnsafeMutableRawPointer(selectorPointer)
                for (i, argument) in arguments.enumerated() { values[2 + i] = argument }
                var result: UInt64 = 0
                ffi_call(cif, imp, &result, values)
            }
        }
    }
}
