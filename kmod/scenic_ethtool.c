// SPDX-License-Identifier: GPL-2.0
/*
 * scenic_ethtool.c: ethtool -i, -S and -C for scenicN.
 *
 * -S shows the device's own counters (host rings 5.1, port 0 2.4), read from the map at the
 * time of the call, then the driver's. -C maps rx-usecs to RX_COAL_NS / 1000, rx-frames to
 * RX_COAL_COUNT and tx-frames to TX_COAL_COUNT (5.5); in polling mode (no F_MSIX) rx-usecs is
 * also the poll timer's period (at least 10 us), taken at the next re-arm.
 */
#include <linux/ethtool.h>

#include "scenic.h"

struct scenic_dev_stat {
	const char *name;
	u64 off;
};

static const struct scenic_dev_stat scenic_dev_stats[] = {
	{ "dev_host_rx_pkts", SC_HOST_RX_PKTS },
	{ "dev_host_rx_bytes", SC_HOST_RX_BYTES },
	{ "dev_host_rx_drops", SC_HOST_RX_DROPS },
	{ "dev_host_tx_pkts", SC_HOST_TX_PKTS },
	{ "dev_host_tx_bytes", SC_HOST_TX_BYTES },
	{ "dev_host_tx_drops", SC_HOST_TX_DROPS },
	{ "dev_port0_rx_pkts", SC_PORT(0) + SC_PORT_RX_PKTS },
	{ "dev_port0_rx_drops", SC_PORT(0) + SC_PORT_RX_DROPS },
	{ "dev_port0_tx_pkts", SC_PORT(0) + SC_PORT_TX_PKTS },
	{ "dev_port0_tx_drops", SC_PORT(0) + SC_PORT_TX_DROPS },
};

static const char * const scenic_sw_stat_names[] = {
	"rx_bad_tag", "rx_alloc_fail", "tx_ring_full", "poll_timer", "napi_polls",
};

#define SC_N_DEV_STATS ARRAY_SIZE(scenic_dev_stats)
#define SC_N_SW_STATS ARRAY_SIZE(scenic_sw_stat_names)

static void scenic_get_drvinfo(struct net_device *dev, struct ethtool_drvinfo *info)
{
	struct scenic_dev *sd = netdev_priv_sd(dev);
	u64 version = sc_rd(sd, SC_VERSION);

	strscpy(info->driver, SCENIC_NAME, sizeof(info->driver));
	snprintf(info->fw_version, sizeof(info->fw_version), "interface %llu.%llu",
		 (version >> 16) & 0xffff, version & 0xffff);
	strscpy(info->bus_info, pci_name(sd->pdev), sizeof(info->bus_info));
}

static int scenic_get_sset_count(struct net_device *dev, int sset)
{
	return sset == ETH_SS_STATS ? SC_N_DEV_STATS + SC_N_SW_STATS : -EOPNOTSUPP;
}

static void scenic_get_strings(struct net_device *dev, u32 sset, u8 *data)
{
	size_t i;

	if (sset != ETH_SS_STATS)
		return;
	for (i = 0; i < SC_N_DEV_STATS; i++)
		ethtool_sprintf(&data, "%s", scenic_dev_stats[i].name);
	for (i = 0; i < SC_N_SW_STATS; i++)
		ethtool_sprintf(&data, "%s", scenic_sw_stat_names[i]);
}

static void scenic_get_ethtool_stats(struct net_device *dev, struct ethtool_stats *stats,
				     u64 *data)
{
	struct scenic_dev *sd = netdev_priv_sd(dev);
	size_t i;

	for (i = 0; i < SC_N_DEV_STATS; i++)
		*data++ = sc_rd(sd, scenic_dev_stats[i].off);
	*data++ = sd->sw.rx_bad_tag;
	*data++ = sd->sw.rx_alloc_fail;
	*data++ = sd->sw.tx_ring_full;
	*data++ = sd->sw.poll_timer;
	*data++ = sd->sw.napi_polls;
}

static int scenic_get_coalesce(struct net_device *dev, struct ethtool_coalesce *ec,
			       struct kernel_ethtool_coalesce *kec, struct netlink_ext_ack *ack)
{
	struct scenic_dev *sd = netdev_priv_sd(dev);

	ec->rx_coalesce_usecs = sc_rd(sd, SC_RX_COAL_NS) / 1000;
	ec->rx_max_coalesced_frames = sc_rd(sd, SC_RX_COAL_COUNT);
	ec->tx_max_coalesced_frames = sc_rd(sd, SC_TX_COAL_COUNT);
	return 0;
}

static int scenic_set_coalesce(struct net_device *dev, struct ethtool_coalesce *ec,
			       struct kernel_ethtool_coalesce *kec, struct netlink_ext_ack *ack)
{
	struct scenic_dev *sd = netdev_priv_sd(dev);
	u64 ns = (u64)ec->rx_coalesce_usecs * 1000;
	int err;

	sc_wr(sd, SC_RX_COAL_NS, ns);
	sc_wr(sd, SC_RX_COAL_COUNT, ec->rx_max_coalesced_frames);
	sc_wr(sd, SC_TX_COAL_COUNT, ec->tx_max_coalesced_frames);
	err = scenic_fence(sd);
	if (err)
		return err;
	if (!(sd->features & SC_F_MSIX))
		scenic_set_poll_period(sd, ns);
	return 0;
}

static u32 scenic_get_link(struct net_device *dev)
{
	return netif_carrier_ok(dev);
}

const struct ethtool_ops scenic_ethtool_ops = {
	.supported_coalesce_params = ETHTOOL_COALESCE_RX_USECS | ETHTOOL_COALESCE_RX_MAX_FRAMES |
				     ETHTOOL_COALESCE_TX_MAX_FRAMES,
	.get_drvinfo = scenic_get_drvinfo,
	.get_link = scenic_get_link,
	.get_sset_count = scenic_get_sset_count,
	.get_strings = scenic_get_strings,
	.get_ethtool_stats = scenic_get_ethtool_stats,
	.get_coalesce = scenic_get_coalesce,
	.set_coalesce = scenic_set_coalesce,
};
