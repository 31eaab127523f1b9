// vigil_crash_report_writer.h: writes the raw crash report, one text record per line, through a
// buffer allocated at install, with write(2) only, and ends it with the end marker that makes it
// valid: `end <crc32 hex> <length>` where the CRC covers every byte before the marker.
//
// Records are flushed only whole (the buffer is flushed before a record that might not fit), so
// the file holds complete records at every moment; a report cut short (the process killed, the
// disk full) simply has no end marker and is never valid. If the handler faults while writing,
// `vigil_report_writer_recover` drops the record in progress and the report can still be ended
// (docs/crash.md, "Second crashes").
//
// Record grammar (docs/crash.md): `tag field field ... [blob]\n`, fields are decimal or
// lowercase hex (`0x`-less), a blob is `<length>:<bytes>` and is always last.
//
// The crash handler's internals; exposed for tests.
#ifndef VIGIL_CRASH_REPORT_WRITER_H
#define VIGIL_CRASH_REPORT_WRITER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The largest record the writer accepts whole; a longer blob is cut to fit.
#define VIGIL_REPORT_RECORD_MAX (40u * 1024u)

/// Writer state. Plain data: the crash handler keeps one in its install-time state.
typedef struct vigil_report_writer {
    int fd;
    uint8_t *buffer;
    uint32_t capacity;
    /// Bytes in the buffer, and where the record being formatted started.
    uint32_t length;
    uint32_t record_start;
    /// Bytes already written to the file, and their CRC.
    uint64_t written;
    uint32_t crc;
    /// Set while a flush runs, with the CRC the file will have once it returns.
    volatile uint32_t in_flush;
    uint32_t pending_crc;
    uint32_t pending_length;
    /// Set when a write failed (`error` holds errno); later output is dropped.
    uint32_t failed;
    int error;
} vigil_report_writer;

/// Starts a report on `fd` (already open, positioned at 0) with `buffer` of `capacity` bytes
/// (at least 2 × VIGIL_REPORT_RECORD_MAX). Async-signal-safe.
void vigil_report_writer_init(vigil_report_writer *writer, int fd, uint8_t *buffer, uint32_t capacity);

/// Starts a record with `tag`. Async-signal-safe.
void vigil_report_begin(vigil_report_writer *writer, const char *tag);
/// Appends ` <decimal>`, ` -<decimal>`, ` <hex>`. Async-signal-safe.
void vigil_report_u64(vigil_report_writer *writer, uint64_t value);
void vigil_report_i64(vigil_report_writer *writer, int64_t value);
void vigil_report_hex(vigil_report_writer *writer, uint64_t value);
/// Appends ` <word>`: `word` must hold no space or newline (register names, arch). Async-signal-safe.
void vigil_report_word(vigil_report_writer *writer, const char *word);
/// Appends ` <hex bytes>` (`-` when `length` is 0). Async-signal-safe.
void vigil_report_hex_bytes(vigil_report_writer *writer, const uint8_t *bytes, uint32_t length);
/// Appends ` <length>:<bytes>`, cut so that the record stays under VIGIL_REPORT_RECORD_MAX.
/// Async-signal-safe (the bytes must be readable).
void vigil_report_blob(vigil_report_writer *writer, const void *bytes, uint32_t length);
/// How many more ` <hex>` values (17 bytes at most each) the record being formatted can take
/// when `reserve` bytes must still follow them. The writer flushes whole records only, so a
/// record that outgrows the buffer's free space would be torn; a long list (a thread's frames)
/// is cut to this instead. Async-signal-safe.
uint32_t vigil_report_hex_capacity(const vigil_report_writer *writer, uint32_t reserve);
/// Ends the record (`\n`) and flushes when the buffer could not take another whole record.
/// Async-signal-safe.
void vigil_report_end(vigil_report_writer *writer);

/// Writes the buffered records now. Returns 0 or an errno value. Async-signal-safe.
int vigil_report_flush(vigil_report_writer *writer);

/// After a fault inside the handler: makes the writer consistent again. Drops the record being
/// formatted; if the fault interrupted a flush, asks the file (lseek) how much of it landed and
/// accepts the flush only if all of it did. Returns 1 when the report can still be ended, 0 when
/// it cannot (it stays without an end marker). Async-signal-safe.
int vigil_report_writer_recover(vigil_report_writer *writer);

/// Flushes, writes the end marker, and cuts the file to the report's length (the install-time
/// reservation is released). Returns 0 or an errno value. Async-signal-safe.
int vigil_report_finish(vigil_report_writer *writer);

#ifdef __cplusplus
}
#endif

#endif
