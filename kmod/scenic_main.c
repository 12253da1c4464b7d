// SPDX-License-Identifier: GPL-2.0
/*
 * scenic_main.c: the PCI driver of the SCENIC device interface (docs/device.md, docs/kmod.md).
 *
 * Binds two kinds of function:
 *  - the SCENIC card (Coyote shell, 10ee:903f), map in BAR 0: untested on hardware;
 *  - QEMU's ivshmem-plain (1af4:1110), whose BAR 2 is the emulated NIC's shared-memory file.
 *    Any ivshmem device can carry anything, so the driver claims one only when BAR 2 holds the
 *    SCENIC magic, a major version it speaks and BAR_BYTES equal to the BAR's size; otherwise
 *    probe returns -ENODEV and the device stays free for another driver.
 *
 * Also here: the command handshake of section 1.2 (kernel-chosen sequence numbers, serialised
 * by cmd_lock) and the fence of section 1.3.
 */
#include <linux/delay.h>
#include <linux/idr.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "scenic.h"

#define PCI_VENDOR_ID_XILINX_COYOTE	0x10ee
#define PCI_DEVICE_ID_SCENIC_CARD	0x903f
#define PCI_VENDOR_ID_QEMU_IVSHMEM	0x1af4
#define PCI_DEVICE_ID_IVSHMEM		0x1110

static DEFINE_IDA(scenic_ida);

/* Waits until DEV_FENCE echoes a new HOST_FENCE value: every earlier write applied (1.3). */
int scenic_fence(struct scenic_dev *sd)
{
	u64 value = sc_rd(sd, SC_HOST_FENCE) + 1;
	unsigned long end = jiffies + msecs_to_jiffies(SC_CMD_TIMEOUT_MS);

	wmb();
	sc_wr(sd, SC_HOST_FENCE, value);
	while (sc_rd(sd, SC_DEV_FENCE) != value) {
		if (time_after(jiffies, end) || !scenic_alive(sd))
			return -ETIMEDOUT;
		usleep_range(20, 100);
	}
	return 0;
}

/* STATUS.READY set, FATAL clear, MAGIC intact (1.6). */
bool scenic_alive(struct scenic_dev *sd)
{
	u64 status;

	if (sc_rd(sd, SC_MAGIC) != SC_MAGIC_VALUE)
		return false;
	status = sc_rd(sd, SC_STATUS);
	return (status & SC_STATUS_READY) && !(status & SC_STATUS_FATAL);
}

/*
 * Issues one command (1.2) on cmd_off and waits for its result in res_off. The sequence number
 * is the kernel's own, never 0; *result gets the whole result word. Returns -ETIMEDOUT when no
 * result arrives within SC_CMD_TIMEOUT_MS (a LOAD takes tens of ms on the emulator) and -ENODEV
 * once the device is gone.
 */
int scenic_command(struct scenic_dev *sd, u64 cmd_off, u64 res_off, u8 op, u64 arg, u64 *result)
{
	unsigned long end;
	u64 seq, res;
	int err = 0;

	mutex_lock(&sd->cmd_lock);
	if (++sd->seq == 0)
		sd->seq = 1;
	seq = sd->seq;
	wmb();
	sc_wr(sd, cmd_off, seq << 48 | (arg & GENMASK_ULL(39, 0)) << 8 | op);
	end = jiffies + msecs_to_jiffies(SC_CMD_TIMEOUT_MS);
	for (;;) {
		res = sc_rd(sd, res_off);
		if (res >> 48 == seq)
			break;
		if (!scenic_alive(sd)) {
			err = -ENODEV;
			break;
		}
		if (time_after(jiffies, end)) {
			err = -ETIMEDOUT;
			break;
		}
		usleep_range(20, 100);
	}
	mutex_unlock(&sd->cmd_lock);
	*result = res;
	return err;
}

/* Reads the identity and refuses what is not a SCENIC map this driver speaks. */
static int scenic_check_identity(struct scenic_dev *sd)
{
	struct device *dev = &sd->pdev->dev;
	u64 magic = sc_rd(sd, SC_MAGIC);
	u64 version = sc_rd(sd, SC_VERSION);
	u64 bar_bytes = sc_rd(sd, SC_BAR_BYTES);
	u64 slots;

	if (magic != SC_MAGIC_VALUE) {
		dev_info(dev, "no SCENIC magic in the BAR (%#llx): not ours\n", magic);
		return -ENODEV;
	}
	if (((version >> 16) & 0xffff) != SC_MAJOR) {
		dev_err(dev, "device speaks interface %llu.%llu, this driver reads %d.x\n",
			(version >> 16) & 0xffff, version & 0xffff, SC_MAJOR);
		return -ENODEV;
	}
	if (bar_bytes != SC_MAP_BYTES || sd->bar_len < SC_MAP_BYTES) {
		dev_err(dev, "BAR_BYTES %#llx, BAR %#llx bytes: need %#llx\n", bar_bytes,
			(u64)sd->bar_len, SC_MAP_BYTES);
		return -ENODEV;
	}
	if (!scenic_alive(sd)) {
		dev_err(dev, "device not ready (STATUS %#llx)\n", sc_rd(sd, SC_STATUS));
		return -ENODEV;
	}
	slots = sc_rd(sd, SC_SLOTS);
	sd->scu_slots = slots & 0xff;
	sd->cc_slots = (slots >> 8) & 0xff;
	sd->ports = (slots >> 32) & 0xff;
	sd->features = sc_rd(sd, SC_FEATURES);
	sd->buf_bytes = sc_rd(sd, SC_BUF_BYTES);
	sd->mtu_max = sc_rd(sd, SC_MTU_MAX);
	if (sd->scu_slots < 1 || sd->scu_slots > 16 || sd->ports < 1 || sd->ports > 4) {
		dev_err(dev, "SLOTS %#llx out of range\n", slots);
		return -ENODEV;
	}
	if (!(sd->features & SC_F_RING_DEVMEM)) {
		/* Host-memory rings (the card, F_RING_HOSTMEM) are not implemented yet. */
		dev_err(dev, "FEATURES %#llx: no F_RING_DEVMEM; host-memory rings are not supported\n",
			sd->features);
		return -EOPNOTSUPP;
	}
	if (sd->buf_bytes < SC_TAG_BYTES + 60 + 18 || sd->mtu_max < 68 ||
	    sd->buf_bytes - SC_TAG_BYTES < sd->mtu_max + 18) {
		dev_err(dev, "BUF_BYTES %llu, MTU_MAX %llu inconsistent\n", sd->buf_bytes,
			sd->mtu_max);
		return -ENODEV;
	}
	return 0;
}

static void scenic_dev_free(struct kref *ref)
{
	struct scenic_dev *sd = container_of(ref, struct scenic_dev, ref);

	kfree(sd);
}

/* Drops a reference; the last one (remove, or the last open file after it) frees sd. */
void scenic_dev_put(struct scenic_dev *sd)
{
	kref_put(&sd->ref, scenic_dev_free);
}

static int scenic_map_bar(struct scenic_dev *sd, int bar)
{
	struct pci_dev *pdev = sd->pdev;
	int err;

	err = pcim_enable_device(pdev);
	if (err)
		return err;
	if (!(pci_resource_flags(pdev, bar) & IORESOURCE_MEM))
		return -ENODEV;
	sd->bar_phys = pci_resource_start(pdev, bar);
	sd->bar_len = pci_resource_len(pdev, bar);
	if (sd->bar_len < SC_MAP_BYTES)
		return -ENODEV;
	/* Map the identity page first: an unrelated ivshmem must not be claimed. */
	err = pcim_iomap_regions(pdev, BIT(bar), SCENIC_NAME);
	if (err)
		return err;
	sd->bar = pcim_iomap_table(pdev)[bar];
	return sd->bar ? 0 : -ENOMEM;
}

static int scenic_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct scenic_dev *sd;
	int err;

	sd = kzalloc(sizeof(*sd), GFP_KERNEL);
	if (!sd)
		return -ENOMEM;
	kref_init(&sd->ref);
	sd->pdev = pdev;
	mutex_init(&sd->cmd_lock);
	mutex_init(&sd->files_lock);
	init_rwsem(&sd->op_lock);
	INIT_LIST_HEAD(&sd->files);
	sd->seq = 0x8000;	/* apart from the runtime's sequence numbers, for readable traces */

	err = scenic_map_bar(sd, (int)id->driver_data);
	if (err)
		goto free;
	err = scenic_check_identity(sd);
	if (err)
		goto free;
	err = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (err)
		goto free;
	pci_set_master(pdev);
	err = ida_alloc_max(&scenic_ida, SC_MAX_DEVICES - 1, GFP_KERNEL);
	if (err < 0)
		goto free;
	sd->minor = err;
	pci_set_drvdata(pdev, sd);

	err = scenic_netdev_create(sd);
	if (err)
		goto ida;
	err = scenic_cdev_add(sd);
	if (err)
		goto netdev;
	dev_info(&pdev->dev, "SCENIC %llu.%llu: %u SCU slots, %u CC slots, %u ports, features %#llx, %s + /dev/scenic%d\n",
		 (sc_rd(sd, SC_VERSION) >> 16) & 0xffff, sc_rd(sd, SC_VERSION) & 0xffff,
		 sd->scu_slots, sd->cc_slots, sd->ports, sd->features, sd->netdev->name,
		 sd->minor);
	return 0;

netdev:
	scenic_netdev_destroy(sd);
ida:
	ida_free(&scenic_ida, sd->minor);
free:
	scenic_dev_put(sd);
	return err;
}

static void scenic_remove(struct pci_dev *pdev)
{
	struct scenic_dev *sd = pci_get_drvdata(pdev);

	scenic_cdev_remove(sd);
	scenic_netdev_destroy(sd);
	ida_free(&scenic_ida, sd->minor);
	scenic_dev_put(sd);
}

static const struct pci_device_id scenic_ids[] = {
	{ PCI_DEVICE(PCI_VENDOR_ID_XILINX_COYOTE, PCI_DEVICE_ID_SCENIC_CARD), .driver_data = 0 },
	{ PCI_DEVICE(PCI_VENDOR_ID_QEMU_IVSHMEM, PCI_DEVICE_ID_IVSHMEM), .driver_data = 2 },
	{ }
};
MODULE_DEVICE_TABLE(pci, scenic_ids);

static struct pci_driver scenic_driver = {
	.name = SCENIC_NAME,
	.id_table = scenic_ids,
	.probe = scenic_probe,
	.remove = scenic_remove,
};

static int __init scenic_init(void)
{
	int err = scenic_cdev_init();

	if (err)
		return err;
	err = pci_register_driver(&scenic_driver);
	if (err)
		scenic_cdev_exit();
	return err;
}

static void __exit scenic_exit(void)
{
	pci_unregister_driver(&scenic_driver);
	scenic_cdev_exit();
	ida_destroy(&scenic_ida);
}

module_init(scenic_init);
module_exit(scenic_exit);

MODULE_DESCRIPTION("SCENIC SmartNIC: netdev and /dev/scenicN over the device interface 1.x");
MODULE_LICENSE("GPL");
