// SPDX-License-Identifier: GPL-2.0
/*
 * ioctl_test.c: the /dev/scenicN ioctls and mmap rules, run inside the QEMU guest by
 * scripts/test-kmod.sh (static: the guest has no C library). Expectations come from
 * docs/device.md (codes of section 6, steering rules of 2.3, mmap rules of 5.7) and
 * kmod/scenic_abi.h. Prints "RESULT ok|fail NAME detail" lines the host counts.
 *
 * Run before any package is loaded: it uses slot 1, steering entry 5 and SLOW_PATH_SLOT, and
 * leaves them as it found them (STAGE_RESET, CLEAR_ROCE, slow path 0xFF).
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "scenic_abi.h"

static sigjmp_buf jump;

static void on_sigbus(int sig)
{
	(void)sig;
	siglongjmp(jump, 1);
}

static void result(int ok, const char *name, const char *fmt, unsigned long long a,
		   unsigned long long b)
{
	printf("RESULT %s ioctl_%s ", ok ? "ok" : "fail", name);
	printf(fmt, a, b);
	printf("\n");
}

/* 1 when reading the 64-bit word at p raises SIGBUS. */
static int faults(volatile uint64_t *p)
{
	if (sigsetjmp(jump, 1))
		return 1;
	(void)*p;
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void test_mmap(int fd, const struct scenic_info *info)
{
	uint64_t slot1 = 0x100000 + 0x40000;
	volatile uint64_t *map;
	uint32_t k = 1;
	int ok;

	map = mmap(NULL, 0x2000000, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		result(0, "mmap", "errno %llu", errno, 0);
		return;
	}
	result(map[0] == 0x000043494E454353ull, "mmap_magic", "MAGIC %#llx (%llu)", map[0], 0);
	ok = faults(&map[slot1 / 8]);
	result(ok, "mmap_ungranted_sigbus", "slot 1 before GRANT_SLOT: sigbus %llu", ok, 0);
	ok = faults(&map[0x1000000 / 8]);
	result(ok, "mmap_rings_sigbus", "ring memory: sigbus %llu", ok, 0);
	ioctl(fd, SCENIC_IOC_GRANT_SLOT, &k);
	ok = !faults(&map[slot1 / 8]) && (map[slot1 / 8] & 0xffff) == (1 << 8 | 1);
	result(ok, "mmap_granted", "slot 1 SLOT_INFO %#llx (kind 1, index 1) scu_slots %llu",
	       map[slot1 / 8], info->scu_slots);
	munmap((void *)map, 0x2000000);
}

static void test_slot_cmd(int fd)
{
	struct scenic_slot_cmd c = { .slot = 1, .op = 0x06 };	/* STAGE_RESET */
	int r = ioctl(fd, SCENIC_IOC_SLOT_CMD, &c);

	result(r == 0 && (c.result & 0xffff) == 0 && c.result >> 48, "slot_cmd_ok",
	       "STAGE_RESET result %#llx ret %lld", c.result, r);
	c.op = 0x55;	/* unknown opcode: E_BAD_COMMAND */
	r = ioctl(fd, SCENIC_IOC_SLOT_CMD, &c);
	result(r == 0 && (c.result & 0xffff) == 1, "slot_cmd_bad_command",
	       "result %#llx ret %lld", c.result, r);
	c.slot = 15;	/* not a present slot of a 4-slot NIC */
	r = ioctl(fd, SCENIC_IOC_SLOT_CMD, &c);
	result(r == -1 && errno == EINVAL, "slot_cmd_absent_slot", "ret %lld errno %llu", r, errno);
}

static uint64_t steer(int fd, uint32_t op, uint64_t key, uint64_t value, struct scenic_steer *s)
{
	memset(s, 0, sizeof(*s));
	s->op = op;
	s->key = key;
	s->value = value;
	if (ioctl(fd, SCENIC_IOC_STEER, s))
		return ~0ull;
	return s->result & 0xffff;
}

static void test_steer(int fd)
{
	uint64_t value = 5 | 1ull << 32 | 1ull << 40;	/* entry 5, slot 1, valid */
	struct scenic_steer s;
	uint64_t st;

	st = steer(fd, 0x01, 0x123, value, &s);		/* WRITE_ROCE */
	result(st == 0, "steer_write", "status %#llx%llu", st, 0);
	st = steer(fd, 0x05, 0x123, 0, &s);		/* LOOKUP_ROCE */
	result(st == 0 && ((s.result >> 16) & 0xffffffff) == 5 && s.rd_key == 0x123,
	       "steer_lookup", "status %#llx detail %llu", st, (s.result >> 16) & 0xffffffff);
	st = steer(fd, 0x01, 0x456, 5000 | 1ull << 32 | 1ull << 40, &s);
	result(st == 0x22, "steer_bad_index", "E_STEER_INDEX expected: %#llx%llu", st, 0);
	st = steer(fd, 0x07, 0, 0, &s);			/* CLEAR_ROCE */
	st = steer(fd, 0x05, 0x123, 0, &s);
	result(st == 0x05, "steer_cleared", "E_NOT_FOUND expected: %#llx%llu", st, 0);
	st = steer(fd, SCENIC_STEER_SLOW_PATH, 0, 200, &s);
	result(st == 0x20 && s.rd_value == 0xff, "steer_slow_path_refused",
	       "result %#llx SLOW_PATH_SLOT %#llx", st, s.rd_value);
}

static void test_wait(int fd)
{
	struct scenic_wait w = { .slot = 1, .causes = 1 << 2, .timeout_ns = 20000000 };
	uint64_t t0 = now_ns();
	int r = ioctl(fd, SCENIC_IOC_WAIT, &w);
	uint64_t took = now_ns() - t0;

	result(r == 0 && w.seen == 0 && took >= 20000000, "wait_timeout",
	       "no notification: waited %llu ns, seen %llu", took, w.seen);
	w.causes = 1 << 7;
	r = ioctl(fd, SCENIC_IOC_WAIT, &w);
	result(r == -1 && errno == EINVAL, "wait_bad_cause", "ret %lld errno %llu", r, errno);
}

static void test_mem(int fd)
{
	struct scenic_mem m = { 0 };
	void *buf = NULL;
	int r;

	if (posix_memalign(&buf, 4096, 1 << 20))
		return;
	memset(buf, 0xab, 1 << 20);
	m.addr = (uintptr_t)buf;
	m.len = 1 << 20;
	r = ioctl(fd, SCENIC_IOC_MEM_REGISTER, &m);
	result(r == 0 && m.id && m.dma_addr && m.segments >= 1, "mem_register",
	       "1 MiB: dma %#llx, %llu segments", m.dma_addr, m.segments);
	r = ioctl(fd, SCENIC_IOC_MEM_UNREGISTER, &m);
	result(r == 0, "mem_unregister", "ret %lld%llu", r, 0);
	r = ioctl(fd, SCENIC_IOC_MEM_UNREGISTER, &m);
	result(r == -1 && errno == ENOENT, "mem_unregister_twice", "ret %lld errno %llu", r, errno);
	m.len = 0;
	r = ioctl(fd, SCENIC_IOC_MEM_REGISTER, &m);
	result(r == -1 && errno == EINVAL, "mem_zero_len", "ret %lld errno %llu", r, errno);
	/* Left registered on purpose: closing the file must release it (checked by rmmod later). */
	m.len = 1 << 20;
	ioctl(fd, SCENIC_IOC_MEM_REGISTER, &m);
}

int main(int argc, char **argv)
{
	int reset = argc > 1 && !strcmp(argv[1], "--reset");
	const char *path = argc > 1 + reset ? argv[1 + reset] : "/dev/scenic0";
	struct scenic_info info = { 0 };
	uint32_t k = 15;
	int fd, r;

	signal(SIGBUS, on_sigbus);
	fd = open(path, O_RDWR);
	if (fd < 0) {
		result(0, "open", "errno %llu", errno, 0);
		return 1;
	}
	if (reset) {
		/* SCENIC_IOC_RESET: the global reset, then the netdev back on fresh rings. */
		r = ioctl(fd, SCENIC_IOC_RESET);
		printf("SCENIC_IOC_RESET: %d (errno %d)\n", r, r ? errno : 0);
		return r ? 1 : 0;
	}
	r = ioctl(fd, SCENIC_IOC_INFO, &info);
	result(r == 0 && info.bar_bytes == 0x2000000 && info.version >> 16 == 1 &&
	       info.scu_slots >= 1 && info.ports >= 1, "info", "version %#llx slots %llu",
	       info.version, info.scu_slots);
	r = ioctl(fd, SCENIC_IOC_GRANT_SLOT, &k);
	result(r == -1 && errno == EINVAL, "grant_absent_slot", "ret %lld errno %llu", r, errno);
	test_mmap(fd, &info);
	test_slot_cmd(fd);
	test_steer(fd);
	test_wait(fd);
	test_mem(fd);
	r = ioctl(fd, _IO(SCENIC_IOC_MAGIC, 99));
	result(r == -1 && errno == ENOTTY, "unknown", "ret %lld errno %llu", r, errno);
	close(fd);
	return 0;
}
