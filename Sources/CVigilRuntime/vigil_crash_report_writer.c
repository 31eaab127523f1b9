// The raw crash report writer and its CRC-32. See include/vigil_crash_report_writer.h.
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE
#endif

#include "vigil_crash_report_writer.h"
#include "vigil_crash.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

// MARK: CRC-32

static uint32_t vigil_crc_table[256];
static _Atomic uint32_t vigil_crc_table_ready = 0;

// Building the table twice (two first calls at once) writes the same values; harmless.
static void vigil_crc_build_table(void) {
    for (uint32_t index = 0; index < 256; index++) {
        uint32_t value = index;
        for (int bit = 0; bit < 8; bit++) value = (value & 1) ? (value >> 1) ^ 0xEDB88320u : value >> 1;
        vigil_crc_table[index] = value;
    }
    atomic_store_explicit(&vigil_crc_table_ready, 1, memory_order_release);
}

uint32_t vigil_crash_crc32(uint32_t crc, const void *bytes, size_t length) {
    if (!atomic_load_explicit(&vigil_crc_table_ready, memory_order_acquire)) vigil_crc_build_table();
    const uint8_t *p = (const uint8_t *)bytes;
    uint32_t value = ~crc;
    for (size_t index = 0; index < length; index++) value = vigil_crc_table[(value ^ p[index]) & 0xFF] ^ (value >> 8);
    return ~value;
}

// MARK: Output

static int vigil_write_all(int fd, const uint8_t *bytes, size_t length, int *error) {
    size_t done = 0;
    while (done < length) {
        ssize_t wrote = write(fd, bytes + done, length - done);
        if (wrote < 0) {
            if (errno == EINTR) continue;
            *error = errno;
            return 0;
        }
        if (wrote == 0) {
            *error = EIO;
            return 0;
        }
        done += (size_t)wrote;
    }
    return 1;
}

void vigil_report_writer_init(vigil_report_writer *writer, int fd, uint8_t *buffer, uint32_t capacity) {
    writer->fd = fd;
    writer->buffer = buffer;
    writer->capacity = capacity;
    writer->length = 0;
    writer->record_start = 0;
    writer->written = 0;
    writer->crc = 0;
    writer->in_flush = 0;
    writer->pending_crc = 0;
    writer->pending_length = 0;
    writer->failed = (fd < 0 || buffer == NULL || capacity < 2 * VIGIL_REPORT_RECORD_MAX) ? 1 : 0;
    writer->error = writer->failed ? EINVAL : 0;
}

// Flushes whole records only: [0, record_start).
static int vigil_report_flush_records(vigil_report_writer *writer) {
    if (writer->failed) return writer->error;
    uint32_t length = writer->record_start;
    if (length == 0) return 0;
    writer->pending_crc = vigil_crash_crc32(writer->crc, writer->buffer, length);
    writer->pending_length = length;
    // A nested handler (a fault inside this one) reads these fields on this thread: the fences
    // keep the compiler from moving the plain stores across the flag.
    atomic_signal_fence(memory_order_seq_cst);
    writer->in_flush = 1;
    atomic_signal_fence(memory_order_seq_cst);
    int error = 0;
    int ok = vigil_write_all(writer->fd, writer->buffer, length, &error);
    if (!ok) {
        writer->failed = 1;
        writer->error = error;
        writer->in_flush = 0;
        return error;
    }
    writer->crc = writer->pending_crc;
    writer->written += length;
    // Keep a record in progress (there is none when called between records).
    uint32_t tail = writer->length - length;
    if (tail > 0) memmove(writer->buffer, writer->buffer + length, tail);
    writer->length = tail;
    writer->record_start = 0;
    atomic_signal_fence(memory_order_seq_cst);
    writer->in_flush = 0;
    return 0;
}

int vigil_report_flush(vigil_report_writer *writer) {
    return vigil_report_flush_records(writer);
}

static void vigil_report_put(vigil_report_writer *writer, const void *bytes, uint32_t length) {
    if (writer->failed) return;
    // A record never outgrows VIGIL_REPORT_RECORD_MAX (blobs are cut), and a record starts only
    // with that much room, so this never overflows; the check keeps it so if a caller errs.
    if (length > writer->capacity - writer->length) return;
    memcpy(writer->buffer + writer->length, bytes, length);
    writer->length += length;
}

static void vigil_report_char(vigil_report_writer *writer, char c) {
    vigil_report_put(writer, &c, 1);
}

void vigil_report_begin(vigil_report_writer *writer, const char *tag) {
    if (writer->failed) return;
    writer->length = writer->record_start;
    if (writer->capacity - writer->length < VIGIL_REPORT_RECORD_MAX) vigil_report_flush_records(writer);
    vigil_report_put(writer, tag, (uint32_t)strlen(tag));
}

void vigil_report_u64(vigil_report_writer *writer, uint64_t value) {
    char digits[24];
    int count = 0;
    do {
        digits[count++] = (char)('0' + value % 10);
        value /= 10;
    } while (value != 0);
    char text[25];
    text[0] = ' ';
    for (int index = 0; index < count; index++) text[1 + index] = digits[count - 1 - index];
    vigil_report_put(writer, text, (uint32_t)count + 1);
}

void vigil_report_i64(vigil_report_writer *writer, int64_t value) {
    if (value >= 0) {
        vigil_report_u64(writer, (uint64_t)value);
        return;
    }
    char text[2] = {' ', '-'};
    vigil_report_put(writer, text, 2);
    uint64_t magnitude = (uint64_t)(-(value + 1)) + 1;
    // Re-use the decimal writer, then drop its leading space.
    uint32_t before = writer->length;
    vigil_report_u64(writer, magnitude);
    if (!writer->failed && writer->length > before) {
        memmove(writer->buffer + before, writer->buffer + before + 1, writer->length - before - 1);
        writer->length--;
    }
}

void vigil_report_hex(vigil_report_writer *writer, uint64_t value) {
    static const char hex[] = "0123456789abcdef";
    char text[17];
    int count = 0;
    char digits[16];
    do {
        digits[count++] = hex[value & 0xF];
        value >>= 4;
    } while (value != 0);
    text[0] = ' ';
    for (int index = 0; index < count; index++) text[1 + index] = digits[count - 1 - index];
    vigil_report_put(writer, text, (uint32_t)count + 1);
}

void vigil_report_word(vigil_report_writer *writer, const char *word) {
    vigil_report_char(writer, ' ');
    uint32_t length = 0;
    while (word[length] != '\0' && word[length] != ' ' && word[length] != '\n' && length < 256) length++;
    vigil_report_put(writer, word, length);
}

void vigil_report_hex_bytes(vigil_report_writer *writer, const uint8_t *bytes, uint32_t length) {
    static const char hex[] = "0123456789abcdef";
    vigil_report_char(writer, ' ');
    if (length == 0 || bytes == NULL) {
        vigil_report_char(writer, '-');
        return;
    }
    if (length > 256) length = 256;
    for (uint32_t index = 0; index < length; index++) {
        char pair[2] = {hex[bytes[index] >> 4], hex[bytes[index] & 0xF]};
        vigil_report_put(writer, pair, 2);
    }
}

void vigil_report_blob(vigil_report_writer *writer, const void *bytes, uint32_t length) {
    if (writer->failed) return;
    uint32_t used = writer->length - writer->record_start;
    uint32_t room = VIGIL_REPORT_RECORD_MAX > used + 32 ? VIGIL_REPORT_RECORD_MAX - used - 32 : 0;
    if (length > room) length = room;
    if (bytes == NULL) length = 0;
    vigil_report_u64(writer, length);
    vigil_report_char(writer, ':');
    vigil_report_put(writer, bytes, length);
}

uint32_t vigil_report_hex_capacity(const vigil_report_writer *writer, uint32_t reserve) {
    if (writer->failed) return 0;
    uint32_t room = writer->capacity - writer->length;
    return room > reserve ? (room - reserve) / 17u : 0;
}

void vigil_report_end(vigil_report_writer *writer) {
    if (writer->failed) return;
    vigil_report_char(writer, '\n');
    atomic_signal_fence(memory_order_seq_cst);
    writer->record_start = writer->length;
    atomic_signal_fence(memory_order_seq_cst);
    if (writer->capacity - writer->length < VIGIL_REPORT_RECORD_MAX) vigil_report_flush_records(writer);
}

int vigil_report_writer_recover(vigil_report_writer *writer) {
    if (writer->failed) return 0;
    if (writer->in_flush) {
        // The fault interrupted a flush (it cannot come from write(2) itself, but from anything
        // the flush runs). The file offset says how much of the flush landed.
        off_t position = lseek(writer->fd, 0, SEEK_CUR);
        if (position < 0 || (uint64_t)position != writer->written + writer->pending_length) {
            writer->failed = 1;
            writer->error = EIO;
            return 0;
        }
        writer->crc = writer->pending_crc;
        writer->written += writer->pending_length;
        writer->length = 0;
        writer->record_start = 0;
        writer->in_flush = 0;
        return 1;
    }
    writer->length = writer->record_start;
    return 1;
}

int vigil_report_finish(vigil_report_writer *writer) {
    if (writer->failed) return writer->error;
    writer->length = writer->record_start;
    int error = vigil_report_flush_records(writer);
    if (error != 0) return error;
    // The end marker is not covered by its own CRC; it is written in one write(2).
    uint64_t covered = writer->written;
    uint32_t crc = writer->crc;
    vigil_report_begin(writer, "end");
    vigil_report_char(writer, ' ');
    static const char hex[] = "0123456789abcdef";
    for (int shift = 28; shift >= 0; shift -= 4) vigil_report_char(writer, hex[(crc >> shift) & 0xF]);
    vigil_report_u64(writer, covered);
    vigil_report_char(writer, '\n');
    if (writer->failed) return writer->error;
    int write_error = 0;
    if (!vigil_write_all(writer->fd, writer->buffer, writer->length, &write_error)) {
        writer->failed = 1;
        writer->error = write_error;
        return write_error;
    }
    writer->written += writer->length;
    writer->length = 0;
    writer->record_start = 0;
    // Drops whatever the install-time reservation left past the end.
    (void)ftruncate(writer->fd, (off_t)writer->written);
    return 0;
}
