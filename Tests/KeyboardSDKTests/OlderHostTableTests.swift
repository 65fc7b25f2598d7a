import CKeyboardABI
import Glibc
@testable import KeyboardSDK
import Testing

/// A host older than this header hands the keyboard a shorter kbh_host_v1. Asking it whether
/// it has a service must read only what its struct_size covers: here the table ends right at
/// an unreadable page, as a table at the end of an allocation can, so a read of the whole
/// struct would end the test process.
@Suite("A host table shorter than this header's")
struct OlderHostTableTests {
    @Test func askingForServicesReadsNothingPastItsEnd() throws {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let memory = try #require(mmap(nil, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0))
        #expect(memory != MAP_FAILED)
        defer { munmap(memory, 2 * page) }
        #expect(mprotect(memory + page, page, PROT_NONE) == 0)
        // The table of a host from before the input models: it ends with last_error.
        let size = MemoryLayout<kbh_host_v1>.offset(of: \kbh_host_v1.last_error)! + MemoryLayout<UInt>.size
        let table = memory + page - size
        memset(table, 0, size)
        table.storeBytes(of: UInt32(size), toByteOffset: MemoryLayout<kbh_host_v1>.offset(of: \kbh_host_v1.struct_size)!, as: UInt32.self)
        let lastError: @convention(c) (UnsafeMutableRawPointer?) -> UnsafePointer<CChar>? = { _ in nil }
        table.storeBytes(of: lastError, toByteOffset: MemoryLayout<kbh_host_v1>.offset(of: \kbh_host_v1.last_error)!,
                         as: (@convention(c) (UnsafeMutableRawPointer?) -> UnsafePointer<CChar>?).self)
        let host = UnsafePointer<kbh_host_v1>(table.assumingMemoryBound(to: kbh_host_v1.self))
        #expect(hostHas(host, \.last_error), "the last field it has (the control)")
        #expect(!hostHas(host, \.set_key_extras) && !hostHas(host, \.touch), "fields past its end are absent")
        #expect(!hostHas(host, \.log), "a field it has, left NULL")
    }
}
