/* scenic_regs.h: the names of docs/device.md (v1.0) for C and C++ conformance runners.
 * Written by scenic_runtime::abi::c_names::render(); do not edit (tests/shell_hw_abi.rs checks it,
 * SCENIC_REWRITE=1 cargo test -p scenic-runtime --test shell_hw_abi rewrites it). */
#ifndef SCENIC_REGS_H
#define SCENIC_REGS_H

#include <stdint.h>

/* A name and its value; each table ends with {0, 0}. */
struct scenic_name {
    const char *name;
    uint64_t value;
};

static const struct scenic_name SCENIC_GLOBAL_REGS[] = {  /* §2, §4, §5: offsets in the map */
    {"MAGIC", 0x0},
    {"VERSION", 0x8},
    {"SLOTS", 0x10},
    {"CLOCK_HZ", 0x18},
    {"LINE_RATE_BPS", 0x20},
    {"FEATURES", 0x28},
    {"STATUS", 0x30},
    {"ERROR", 0x38},
    {"SCRATCH", 0x40},
    {"RESET", 0x48},
    {"HOST_FENCE", 0x50},
    {"DEV_FENCE", 0x58},
    {"POLL_NS", 0x60},
    {"NOW_NS", 0x68},
    {"BAR_BYTES", 0x70},
    {"HEARTBEAT", 0x78},
    {"RESET_RESULT", 0x80},
    {"INSTANCE", 0x88},
    {"STEER_CAPS", 0x1000},
    {"SLOW_PATH_SLOT", 0x1008},
    {"STEER_KEY", 0x1010},
    {"STEER_VALUE", 0x1018},
    {"STEER_CMD", 0x1020},
    {"STEER_RESULT", 0x1028},
    {"STEER_RD_KEY", 0x1030},
    {"STEER_RD_VALUE", 0x1038},
    {"STEER_MISSES", 0x1040},
    {"RING_CTRL", 0x3000},
    {"RING_MEM_OFFSET", 0x3008},
    {"RING_MEM_BYTES", 0x3010},
    {"BUF_BYTES", 0x3018},
    {"MTU_MAX", 0x3020},
    {"MTU", 0x3028},
    {"RX_BASE", 0x3030},
    {"RX_SIZE", 0x3038},
    {"RX_PROD", 0x3040},
    {"RX_CONS", 0x3048},
    {"TX_BASE", 0x3050},
    {"TX_SIZE", 0x3058},
    {"TX_PROD", 0x3060},
    {"TX_CONS", 0x3068},
    {"HOST_RX_PKTS", 0x3070},
    {"HOST_RX_BYTES", 0x3078},
    {"HOST_RX_DROPS", 0x3080},
    {"HOST_TX_PKTS", 0x3088},
    {"HOST_TX_BYTES", 0x3090},
    {"HOST_TX_DROPS", 0x3098},
    {"INT_CAUSE", 0x30a0},
    {"INT_MASK", 0x30a8},
    {"INT_ACK", 0x30b0},
    {"RX_COAL_NS", 0x30b8},
    {"RX_COAL_COUNT", 0x30c0},
    {"TX_COAL_COUNT", 0x30c8},
    {"INT_VECTORS", 0x30d0},
    {"CC_ACTIVE", 0x4000},
    {"CC_CMD", 0x4008},
    {"CC_RESULT", 0x4010},
    {"CC_SWITCH_SEQ", 0x4018},
    {"CC_EVENT_SEQ", 0x4020},
    {"CC_OUTPUT_KIND", 0x4028},
    {"EV_INFO", 0x4030},
    {"EV_PROD", 0x4038},
    {"EV_CONS", 0x4040},
    {"EV_DROPPED", 0x4048},
    {0, 0},
};

static const struct scenic_name SCENIC_SLOT_REGS[] = {  /* §3.2: offsets in a slot block */
    {"SLOT_INFO", 0x0},
    {"SLOT_STATE", 0x8},
    {"SLOT_CMD", 0x10},
    {"SLOT_RESULT", 0x18},
    {"SLOT_ERROR", 0x20},
    {"SWITCH_SEQ", 0x28},
    {"SWITCH_COUNT", 0x30},
    {"ARB_WEIGHT", 0x38},
    {"PKT_SEQ", 0x40},
    {"RX_BYTES", 0x48},
    {"OUT_NET_PKTS", 0x50},
    {"OUT_NET_BYTES", 0x58},
    {"OUT_HOST_PKTS", 0x60},
    {"OUT_HOST_BYTES", 0x68},
    {"DROP_PROGRAM", 0x70},
    {"DROP_PARSER", 0x78},
    {"DROP_NO_UNIT", 0x80},
    {"DROP_FULL", 0x88},
    {"MIRRORED", 0x90},
    {0, 0},
};

static const struct scenic_name SCENIC_CODES[] = {  /* §6 */
    {"OK", 0x0000},
    {"E_BAD_COMMAND", 0x0001},
    {"E_BAD_STATE", 0x0002},
    {"E_SEQ", 0x0003},
    {"E_READ_ONLY", 0x0004},
    {"E_NOT_FOUND", 0x0005},
    {"E_QUEUE_OVERRUN", 0x0006},
    {"E_RESET_KEY", 0x0007},
    {"E_IMAGE_KIND", 0x0010},
    {"E_IMAGE_LEN", 0x0011},
    {"E_IMAGE_CRC", 0x0012},
    {"E_IMAGE_FORMAT", 0x0013},
    {"E_VERSION", 0x0014},
    {"E_UNIT", 0x0015},
    {"E_IDENTITY", 0x0016},
    {"E_TOO_WIDE", 0x0017},
    {"E_RESOURCES", 0x0018},
    {"E_STEER_SLOT", 0x0020},
    {"E_STEER_KIND", 0x0021},
    {"E_STEER_INDEX", 0x0022},
    {"E_STEER_DUP", 0x0023},
    {"E_CSR_READONLY", 0x0030},
    {"E_CSR_UNMAPPED", 0x0031},
    {"E_CSR_NO_BANK", 0x0032},
    {"E_RING_CONFIG", 0x0040},
    {"E_MTU", 0x0041},
    {"E_CC_NO_STANDBY", 0x0050},
    {"E_CC_MISMATCH", 0x0051},
    {"E_CC_EVENT", 0x0052},
    {0, 0},
};

static const struct scenic_name SCENIC_OPCODES[] = {  /* §2.3, §3.4, §4.1 */
    {"WRITE_ROCE", 0x01},
    {"WRITE_TCP", 0x02},
    {"READ_ROCE", 0x03},
    {"READ_TCP", 0x04},
    {"LOOKUP_ROCE", 0x05},
    {"LOOKUP_TCP", 0x06},
    {"CLEAR_ROCE", 0x07},
    {"CLEAR_TCP", 0x08},
    {"LOAD", 0x01},
    {"ACTIVATE", 0x02},
    {"DEACTIVATE", 0x03},
    {"FREE", 0x04},
    {"MIRROR", 0x05},
    {"STAGE_RESET", 0x06},
    {"STAGE_WRITE", 0x07},
    {"QUEUE_RESET", 0x08},
    {"SWITCH", 0x01},
    {"STOP", 0x02},
    {0, 0},
};

#define SCENIC_SLOT_BLOCK_BASE 0x100000ull
#define SCENIC_SLOT_BLOCK_STRIDE 0x40000ull
#define SCENIC_SLOT_BLOCKS 0x12ull
#define SCENIC_CC_SLOT_A 0x10ull
#define SCENIC_CC_SLOT_B 0x11ull
#define SCENIC_CSR_WINDOW 0x20000ull
#define SCENIC_CSR_WINDOW_WORDS 0x2000ull

#endif
