// SPDX-License-Identifier: GPL-2.0
/*
 * scenic_netdev.c: the netdev scenicN over the host rings of docs/device.md section 5, in device
 * memory (F_RING_DEVMEM: the emulator's map behind ivshmem).
 *
 * RX (5.2): buffer i holds a 16-byte tag (len, flags VALID, slot, port, time) then the frame,
 * written by the device in one transfer. NAPI reads RX_PROD, then buffers from our RX_CONS up to
 * it, copies each frame into an skb, clears the tag's word 0 and publishes RX_CONS after the
 * batch. A VALID-less or out-of-range tag is a device fault: dropped and counted (rx_bad_tag).
 * TX (5.3): ndo_start_xmit copies the (linear, padded) frame after a 16-byte command into buffer
 * TX_PROD, then wmb() and the TX_PROD doorbell; the copy makes the skb free at once, and TX_CONS
 * only tells when a buffer may be reused (the queue stops when the ring is full and NAPI wakes it).
 *
 * Without F_MSIX nothing interrupts (5.6): an hrtimer of period RX_COAL_NS (at least 10 us)
 * schedules NAPI; NAPI re-arms it when it completes, so the timer and a poll never run at once
 * and a busy ring is polled back to back by NAPI itself. `polling` is cleared before the timer is
 * cancelled at ndo_stop, so nothing re-arms it afterwards.
 */
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/if_vlan.h>

#include "scenic.h"

#define SC_NAPI_WEIGHT 64

static void __iomem *rx_buf(struct scenic_dev *sd, u32 i)
{
	return sd->ring_mem + sd->rx_base + (u64)(i & (sd->rx_size - 1)) * sd->buf_bytes;
}

static void __iomem *tx_buf(struct scenic_dev *sd, u32 i)
{
	return sd->ring_mem + sd->tx_base + (u64)(i & (sd->tx_size - 1)) * sd->buf_bytes;
}

static void stats_add(struct scenic_stats *s, u64 bytes)
{
	u64_stats_update_begin(&s->syncp);
	s->packets++;
	s->bytes += bytes;
	u64_stats_update_end(&s->syncp);
}

static void stats_drop(struct scenic_stats *s)
{
	u64_stats_update_begin(&s->syncp);
	s->drops++;
	u64_stats_update_end(&s->syncp);
}

/* One RX buffer: its frame into an skb for the stack, or a counted drop. */
static void scenic_rx_one(struct scenic_dev *sd, u32 i)
{
	void __iomem *buf = rx_buf(sd, i);
	u64 tag = readq(buf);
	u32 len = tag & 0xffff;
	u8 flags = (tag >> 16) & 0xff;
	struct sk_buff *skb;

	if (!(flags & SC_TAG_VALID) || len < ETH_HLEN || len > sd->buf_bytes - SC_TAG_BYTES) {
		sd->sw.rx_bad_tag++;
		stats_drop(&sd->rx_stats);
		goto done;
	}
	skb = napi_alloc_skb(&sd->napi, len);
	if (!skb) {
		sd->sw.rx_alloc_fail++;
		stats_drop(&sd->rx_stats);
		goto done;
	}
	memcpy_fromio(skb_put(skb, len), buf + SC_TAG_BYTES, len);
	skb->protocol = eth_type_trans(skb, sd->netdev);
	stats_add(&sd->rx_stats, len);
	napi_gro_receive(&sd->napi, skb);
done:
	writeq(0, buf);
}

static int scenic_rx(struct scenic_dev *sd, int budget)
{
	u32 prod = (u32)sc_rd(sd, SC_RX_PROD);
	int done = 0;

	rmb();
	while (done < budget && sd->rx_cons != prod) {
		scenic_rx_one(sd, sd->rx_cons);
		sd->rx_cons++;
		done++;
	}
	if (done) {
		wmb();
		sc_wr(sd, SC_RX_CONS, sd->rx_cons);
	}
	return done;
}

static u32 tx_free(struct scenic_dev *sd)
{
	u32 cons = (u32)sc_rd(sd, SC_TX_CONS);

	return sd->tx_size - (sd->tx_prod - cons);
}

/* TX completions free ring buffers: wake a queue stopped on a full ring. */
static void scenic_tx_clean(struct scenic_dev *sd)
{
	if (netif_queue_stopped(sd->netdev) && tx_free(sd) > 0)
		netif_wake_queue(sd->netdev);
}

static void scenic_link(struct scenic_dev *sd)
{
	bool up = sc_rd(sd, SC_PORT(0) + SC_PORT_LINK) & 1;

	if (up && !netif_carrier_ok(sd->netdev))
		netif_carrier_on(sd->netdev);
	else if (!up && netif_carrier_ok(sd->netdev))
		netif_carrier_off(sd->netdev);
}

static int scenic_poll(struct napi_struct *napi, int budget)
{
	struct scenic_dev *sd = container_of(napi, struct scenic_dev, napi);
	int done;

	sd->sw.napi_polls++;
	done = scenic_rx(sd, budget);
	scenic_tx_clean(sd);
	scenic_link(sd);
	if (done < budget && napi_complete_done(napi, done) && READ_ONCE(sd->polling))
		hrtimer_start(&sd->poll_timer, READ_ONCE(sd->poll_period), HRTIMER_MODE_REL);
	return done;
}

static enum hrtimer_restart scenic_poll_timer(struct hrtimer *t)
{
	struct scenic_dev *sd = container_of(t, struct scenic_dev, poll_timer);

	sd->sw.poll_timer++;
	napi_schedule(&sd->napi);
	return HRTIMER_NORESTART;
}

/* The poll period: RX_COAL_NS, at least 10 us (5.6). */
void scenic_set_poll_period(struct scenic_dev *sd, u64 ns)
{
	WRITE_ONCE(sd->poll_period, ns_to_ktime(max_t(u64, ns, SC_POLL_MIN_NS)));
}

static netdev_tx_t scenic_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct scenic_dev *sd = netdev_priv_sd(dev);
	void __iomem *buf;
	u32 len;

	if (skb_put_padto(skb, ETH_ZLEN)) {
		stats_drop(&sd->tx_stats);
		return NETDEV_TX_OK;
	}
	len = skb->len;
	if (len > dev->mtu + VLAN_ETH_HLEN || skb_linearize(skb)) {
		stats_drop(&sd->tx_stats);
		dev_kfree_skb_any(skb);
		return NETDEV_TX_OK;
	}
	if (tx_free(sd) == 0) {
		sd->sw.tx_ring_full++;
		netif_stop_queue(dev);
		return NETDEV_TX_BUSY;
	}
	buf = tx_buf(sd, sd->tx_prod);
	memcpy_toio(buf + SC_TAG_BYTES, skb->data, len);
	writeq((u64)len | (u64)SC_TAG_VALID << 16 | (u64)SC_TX_SLOT_DIRECT << 24, buf);
	writeq(0, buf + 8);
	sd->tx_prod++;
	wmb();
	sc_wr(sd, SC_TX_PROD, sd->tx_prod);
	stats_add(&sd->tx_stats, len);
	dev_consume_skb_any(skb);
	if (tx_free(sd) == 0)
		netif_stop_queue(dev);
	return NETDEV_TX_OK;
}

/*
 * Programs and enables the rings (5.1): our indices restart at 0 as the device's do on enable.
 * The enable is fenced and read back: E_RING_CONFIG leaves the enable bits 0.
 */
static int scenic_rings_start(struct scenic_dev *sd)
{
	u64 ring_bytes = sc_rd(sd, SC_RING_MEM_BYTES);
	u64 ring_off = sc_rd(sd, SC_RING_MEM_OFFSET);
	u64 half = (u64)SC_RING_ENTRIES * sd->buf_bytes;
	int err;

	if (ring_off + ring_bytes > sd->bar_len || 2 * half > ring_bytes)
		return -EINVAL;
	sd->ring_mem = sd->bar + ring_off;
	sd->rx_size = SC_RING_ENTRIES;
	sd->tx_size = SC_RING_ENTRIES;
	sd->rx_base = 0;
	sd->tx_base = half;
	sd->rx_cons = 0;
	sd->tx_prod = 0;
	sc_wr(sd, SC_RING_CTRL, 0);
	sc_wr(sd, SC_RX_BASE, sd->rx_base);
	sc_wr(sd, SC_RX_SIZE, sd->rx_size);
	sc_wr(sd, SC_TX_BASE, sd->tx_base);
	sc_wr(sd, SC_TX_SIZE, sd->tx_size);
	sc_wr(sd, SC_MTU, sd->netdev->mtu);
	err = scenic_fence(sd);
	if (err)
		return err;
	sc_wr(sd, SC_RING_CTRL, SC_RING_RX_EN | SC_RING_TX_EN);
	err = scenic_fence(sd);
	if (err)
		return err;
	if ((sc_rd(sd, SC_RING_CTRL) & 3) != 3) {
		netdev_err(sd->netdev, "device refused the ring configuration (ERROR %#llx)\n",
			   sc_rd(sd, SC_ERROR));
		return -EIO;
	}
	scenic_set_poll_period(sd, sc_rd(sd, SC_RX_COAL_NS));
	return 0;
}

static void scenic_rings_stop(struct scenic_dev *sd)
{
	sc_wr(sd, SC_RING_CTRL, 0);
	scenic_fence(sd);
}

static int scenic_open(struct net_device *dev)
{
	struct scenic_dev *sd = netdev_priv_sd(dev);
	int err;

	if (!scenic_alive(sd))
		return -ENODEV;
	err = scenic_rings_start(sd);
	if (err)
		return err;
	scenic_link(sd);
	napi_enable(&sd->napi);
	WRITE_ONCE(sd->polling, true);
	hrtimer_start(&sd->poll_timer, READ_ONCE(sd->poll_period), HRTIMER_MODE_REL);
	netif_start_queue(dev);
	return 0;
}

static int scenic_stop(struct net_device *dev)
{
	struct scenic_dev *sd = netdev_priv_sd(dev);

	netif_stop_queue(dev);
	WRITE_ONCE(sd->polling, false);
	hrtimer_cancel(&sd->poll_timer);
	napi_disable(&sd->napi);
	/* A poll that ran before napi_disable may have re-armed the timer. */
	hrtimer_cancel(&sd->poll_timer);
	netif_carrier_off(dev);
	scenic_rings_stop(sd);
	return 0;
}

/* MTU (5.4): the device takes it within POLL_NS; fenced so the next frame sees it. */
static int scenic_change_mtu(struct net_device *dev, int mtu)
{
	struct scenic_dev *sd = netdev_priv_sd(dev);
	int err;

	sc_wr(sd, SC_MTU, mtu);
	err = scenic_fence(sd);
	if (err)
		return err;
	if (sc_rd(sd, SC_MTU) != (u64)mtu)
		return -EINVAL;
	dev->mtu = mtu;
	return 0;
}

static void scenic_get_stats64(struct net_device *dev, struct rtnl_link_stats64 *s)
{
	struct scenic_dev *sd = netdev_priv_sd(dev);
	unsigned int start;

	do {
		start = u64_stats_fetch_begin(&sd->rx_stats.syncp);
		s->rx_packets = sd->rx_stats.packets;
		s->rx_bytes = sd->rx_stats.bytes;
		s->rx_dropped = sd->rx_stats.drops;
	} while (u64_stats_fetch_retry(&sd->rx_stats.syncp, start));
	do {
		start = u64_stats_fetch_begin(&sd->tx_stats.syncp);
		s->tx_packets = sd->tx_stats.packets;
		s->tx_bytes = sd->tx_stats.bytes;
		s->tx_dropped = sd->tx_stats.drops;
	} while (u64_stats_fetch_retry(&sd->tx_stats.syncp, start));
	/* Frames the device dropped for want of an RX buffer are ours to report. */
	s->rx_missed_errors = sc_rd(sd, SC_HOST_RX_DROPS);
	s->tx_errors = sc_rd(sd, SC_HOST_TX_DROPS);
}

static const struct net_device_ops scenic_netdev_ops = {
	.ndo_open = scenic_open,
	.ndo_stop = scenic_stop,
	.ndo_start_xmit = scenic_xmit,
	.ndo_change_mtu = scenic_change_mtu,
	.ndo_get_stats64 = scenic_get_stats64,
	.ndo_set_mac_address = eth_mac_addr,
	.ndo_validate_addr = eth_validate_addr,
};

/* The global reset (SCENIC_IOC_RESET) zeroed the rings: bring a running netdev back up on them. */
int scenic_netdev_reset(struct scenic_dev *sd)
{
	struct net_device *dev = sd->netdev;
	bool was_running;
	u64 result;
	int err;

	rtnl_lock();
	was_running = netif_running(dev);
	if (was_running)
		dev_close(dev);
	err = scenic_command(sd, SC_RESET, SC_RESET_RESULT, SC_RESET_OPCODE, SC_RESET_KEY,
			     &result);
	if (!err && (result & 0xffff))
		err = -EIO;
	if (!err && was_running)
		err = dev_open(dev, NULL);
	rtnl_unlock();
	return err;
}

int scenic_netdev_create(struct scenic_dev *sd)
{
	struct net_device *dev;
	u64 mac;
	u8 addr[ETH_ALEN];
	int i, err;

	dev = alloc_etherdev(sizeof(struct scenic_dev *));
	if (!dev)
		return -ENOMEM;
	*(struct scenic_dev **)netdev_priv(dev) = sd;
	sd->netdev = dev;
	SET_NETDEV_DEV(dev, &sd->pdev->dev);
	snprintf(dev->name, IFNAMSIZ, SCENIC_NAME "%d", sd->minor);
	dev->netdev_ops = &scenic_netdev_ops;
	dev->ethtool_ops = &scenic_ethtool_ops;
	dev->min_mtu = ETH_MIN_MTU;
	dev->max_mtu = sd->mtu_max;
	dev->mtu = min_t(u64, ETH_DATA_LEN, sd->mtu_max);
	mac = sc_rd(sd, SC_PORT(0) + SC_PORT_MAC);
	for (i = 0; i < ETH_ALEN; i++)
		addr[i] = (mac >> (8 * i)) & 0xff;
	if (is_valid_ether_addr(addr))
		eth_hw_addr_set(dev, addr);
	else
		eth_hw_addr_random(dev);
	u64_stats_init(&sd->rx_stats.syncp);
	u64_stats_init(&sd->tx_stats.syncp);
	hrtimer_init(&sd->poll_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	sd->poll_timer.function = scenic_poll_timer;
	scenic_set_poll_period(sd, sc_rd(sd, SC_RX_COAL_NS));
	netif_napi_add(dev, &sd->napi, scenic_poll);
	netif_carrier_off(dev);
	err = register_netdev(dev);
	if (err) {
		netif_napi_del(&sd->napi);
		free_netdev(dev);
		sd->netdev = NULL;
	}
	return err;
}

void scenic_netdev_destroy(struct scenic_dev *sd)
{
	if (!sd->netdev)
		return;
	unregister_netdev(sd->netdev);
	netif_napi_del(&sd->napi);
	free_netdev(sd->netdev);
	sd->netdev = NULL;
}
