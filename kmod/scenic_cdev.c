// SPDX-License-Identifier: GPL-2.0
/*
 * scenic_cdev.c: /dev/scenicN (docs/device.md 5.7, docs/kmod.md).
 *
 * mmap: file offsets are map offsets. The global 64 KiB (0x0 .. 0x10000) may be mapped by
 * anyone, writable only by a file opened with CAP_NET_ADMIN; slot block k (256 KiB at
 * 0x100000 + k * 0x40000) only once SCENIC_IOC_GRANT_SLOT granted it on this file; everything
 * else (reserved space, ring memory, which the netdev owns) never. A mapping may span the whole
 * map (the runtime maps all 32 MiB at once): pages are inserted on fault, and a fault on a page
 * the file may not see is SIGBUS. At remove every mapping is zapped, so a later access faults
 * and gets SIGBUS too, and file operations return -ENODEV.
 *
 * ioctls (scenic_abi.h): INFO, GRANT_SLOT, WAIT, RESET of 5.7, and the kernel-mediated SLOT_CMD,
 * STEER, MEM_REGISTER and MEM_UNREGISTER. Commands go through scenic_command(), serialised per
 * device; STEER holds the same lock across its register writes and its command so two processes
 * never mix their STEER_KEY/STEER_VALUE.
 */
#include <linux/capability.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/version.h>

#include "scenic.h"
#include "scenic_abi.h"

static dev_t scenic_devt;
static struct class *scenic_class;
/* The device behind each minor; open takes a reference under the lock, remove clears the slot. */
static DEFINE_MUTEX(scenic_devs_lock);
static struct scenic_dev *scenic_devs[SC_MAX_DEVICES];

/* Which slot block a map offset falls in, or -1 (global area, reserved, rings). */
static int slot_of(u64 off)
{
	if (off < SC_SLOT_BASE || off >= SC_SLOT_END)
		return -1;
	return (int)((off - SC_SLOT_BASE) / SC_SLOT_STRIDE);
}

static bool page_allowed(struct scenic_file *f, u64 off)
{
	int k;

	if (off < SC_GLOBAL_BYTES)
		return true;
	k = slot_of(off);
	return k >= 0 && (READ_ONCE(f->granted) & BIT(k));
}

static vm_fault_t scenic_vm_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct scenic_file *f = vma->vm_private_data;
	struct scenic_dev *sd = f->sd;
	u64 off = (u64)vmf->pgoff << PAGE_SHIFT;

	if (READ_ONCE(sd->gone) || off >= SC_MAP_BYTES || !page_allowed(f, off))
		return VM_FAULT_SIGBUS;
	return vmf_insert_pfn(vma, vmf->address, (sd->bar_phys + off) >> PAGE_SHIFT);
}

static const struct vm_operations_struct scenic_vm_ops = {
	.fault = scenic_vm_fault,
};

static int scenic_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct scenic_file *f = file->private_data;
	u64 off = (u64)vma->vm_pgoff << PAGE_SHIFT;
	u64 len = vma->vm_end - vma->vm_start;

	if (READ_ONCE(f->sd->gone))
		return -ENODEV;
	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	if (off >= SC_MAP_BYTES || len > SC_MAP_BYTES - off)
		return -EINVAL;
	/* Without CAP_NET_ADMIN only read-only mappings of the global area are useful. */
	if (!f->admin) {
		if (vma->vm_flags & VM_WRITE)
			return -EPERM;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
		vm_flags_clear(vma, VM_MAYWRITE);
#else
		vma->vm_flags &= ~VM_MAYWRITE;
#endif
	}
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	vm_flags_set(vma, VM_IO | VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP);
#else
	vma->vm_flags |= VM_IO | VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP;
#endif
	vma->vm_page_prot = pgprot_noncached(vma->vm_page_prot);
	vma->vm_private_data = f;
	vma->vm_ops = &scenic_vm_ops;
	return 0;
}

static int scenic_open(struct inode *inode, struct file *file)
{
	unsigned int minor = iminor(inode);
	struct scenic_dev *sd;
	struct scenic_file *f;

	if (minor >= SC_MAX_DEVICES)
		return -ENODEV;
	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	mutex_lock(&scenic_devs_lock);
	sd = scenic_devs[minor];
	if (!sd) {
		mutex_unlock(&scenic_devs_lock);
		kfree(f);
		return -ENODEV;
	}
	kref_get(&sd->ref);
	mutex_lock(&sd->files_lock);
	mutex_unlock(&scenic_devs_lock);
	f->sd = sd;
	f->file = file;
	f->admin = capable(CAP_NET_ADMIN);
	mutex_init(&f->mem_lock);
	INIT_LIST_HEAD(&f->mems);
	list_add(&f->node, &sd->files);
	mutex_unlock(&sd->files_lock);
	file->private_data = f;
	return 0;
}

static int scenic_release(struct inode *inode, struct file *file)
{
	struct scenic_file *f = file->private_data;
	struct scenic_dev *sd = f->sd;

	scenic_mem_release_all(f);
	mutex_lock(&sd->files_lock);
	list_del(&f->node);
	mutex_unlock(&sd->files_lock);
	kfree(f);
	scenic_dev_put(sd);
	return 0;
}

static long ioc_info(struct scenic_file *f, void __user *arg)
{
	struct scenic_dev *sd = f->sd;
	struct scenic_info info = {};
	u64 instance = sc_rd(sd, SC_INSTANCE);
	int i;

	info.bar_bytes = sc_rd(sd, SC_BAR_BYTES);
	info.version = sc_rd(sd, SC_VERSION);
	info.features = sd->features;
	info.scu_slots = sd->scu_slots;
	info.cc_slots = sd->cc_slots;
	info.ports = sd->ports;
	info.minor = sd->minor;
	for (i = 0; i < 8; i++)
		info.instance[i] = (instance >> (8 * i)) & 0xff;
	return copy_to_user(arg, &info, sizeof(info)) ? -EFAULT : 0;
}

/* A present slot block: SCU slots 0..N-1, and CC slots 16, 17 when the device has them. */
static bool slot_present(struct scenic_dev *sd, u32 k)
{
	if (k < sd->scu_slots)
		return true;
	return sd->cc_slots == 2 && (k == 16 || k == 17);
}

static long ioc_grant(struct scenic_file *f, void __user *arg)
{
	u32 k;

	if (!capable(CAP_NET_ADMIN))
		return -EPERM;
	if (get_user(k, (u32 __user *)arg))
		return -EFAULT;
	if (!slot_present(f->sd, k))
		return -EINVAL;
	/* Only this thread's ioctl and fault readers: a racing fault sees the old or new mask. */
	WRITE_ONCE(f->granted, f->granted | BIT(k));
	return 0;
}

/* The causes of SCENIC_IOC_WAIT that hold for a slot now (INT_CAUSE bit numbers, 5.5). */
static u32 wait_causes(struct scenic_dev *sd, u32 slot, u32 mask)
{
	u64 base = SC_SLOT(slot);
	u32 seen = 0;

	if ((mask & BIT(2)) && sc_rd(sd, base + SC_NQ_PROD) != sc_rd(sd, base + SC_NQ_CONS))
		seen |= BIT(2);
	if ((mask & BIT(3)) &&
	    sc_rd(sd, base + SC_CQ_RSP_PROD) != sc_rd(sd, base + SC_CQ_RSP_CONS))
		seen |= BIT(3);
	return seen;
}

/*
 * Polling mode (no F_MSIX): re-checks the slot's rings every 50-100 us until a cause holds, the
 * timeout passes or a signal arrives (-EINTR). With MSI-X this would sleep on the vector.
 */
static long ioc_wait(struct scenic_file *f, void __user *arg)
{
	struct scenic_dev *sd = f->sd;
	struct scenic_wait w;
	u64 end;

	if (copy_from_user(&w, arg, sizeof(w)))
		return -EFAULT;
	if (!slot_present(sd, w.slot) || !(f->granted & BIT(w.slot)))
		return -EINVAL;
	if (w.causes & ~(BIT(2) | BIT(3)))
		return -EINVAL;
	end = ktime_get_ns() + w.timeout_ns;
	for (;;) {
		if (!scenic_alive(sd))
			return -ENODEV;
		w.seen = wait_causes(sd, w.slot, w.causes);
		if (w.seen || ktime_get_ns() >= end)
			break;
		if (signal_pending(current))
			return -EINTR;
		usleep_range(50, 100);
	}
	return copy_to_user(arg, &w, sizeof(w)) ? -EFAULT : 0;
}

static long ioc_slot_cmd(struct scenic_file *f, void __user *arg)
{
	struct scenic_dev *sd = f->sd;
	struct scenic_slot_cmd c;
	u64 base;
	int err;

	if (copy_from_user(&c, arg, sizeof(c)))
		return -EFAULT;
	if (!slot_present(sd, c.slot) || !(f->granted & BIT(c.slot)))
		return -EINVAL;
	if (c.op == 0 || c.op > 0xff || c.arg >> 40)
		return -EINVAL;
	base = SC_SLOT(c.slot);
	err = scenic_command(sd, base + SC_SLOT_CMD, base + SC_SLOT_RESULT, c.op, c.arg, &c.result);
	if (err)
		return err;
	return copy_to_user(arg, &c, sizeof(c)) ? -EFAULT : 0;
}

/* SLOW_PATH_SLOT (2.3, RW): written, fenced, and read back: the device writes a refusal back. */
static int steer_slow_path(struct scenic_dev *sd, struct scenic_steer *s)
{
	int err;

	if (s->value > 0xff)
		return -EINVAL;
	mutex_lock(&sd->cmd_lock);
	sc_wr(sd, SC_SLOW_PATH_SLOT, s->value);
	mutex_unlock(&sd->cmd_lock);
	err = scenic_fence(sd);
	if (err)
		return err;
	s->result = sc_rd(sd, SC_SLOW_PATH_SLOT) == s->value ? 0 : SC_E_STEER_SLOT;
	s->rd_value = sc_rd(sd, SC_SLOW_PATH_SLOT);
	return 0;
}

static long ioc_steer(struct scenic_file *f, void __user *arg)
{
	struct scenic_dev *sd = f->sd;
	struct scenic_steer s;
	int err;

	if (!f->admin)
		return -EPERM;
	if (copy_from_user(&s, arg, sizeof(s)))
		return -EFAULT;
	if (s.op == SCENIC_STEER_SLOW_PATH) {
		err = steer_slow_path(sd, &s);
	} else if (s.op >= 1 && s.op <= 8) {
		/* Key and value are part of the command: written under the command lock. */
		mutex_lock(&sd->cmd_lock);
		sc_wr(sd, SC_STEER_KEY, s.key);
		sc_wr(sd, SC_STEER_VALUE, s.value);
		mutex_unlock(&sd->cmd_lock);
		err = scenic_fence(sd);
		if (!err)
			err = scenic_command(sd, SC_STEER_CMD, SC_STEER_RESULT, s.op, 0, &s.result);
		s.rd_key = sc_rd(sd, SC_STEER_RD_KEY);
		s.rd_value = sc_rd(sd, SC_STEER_RD_VALUE);
	} else {
		return -EINVAL;
	}
	if (err)
		return err;
	return copy_to_user(arg, &s, sizeof(s)) ? -EFAULT : 0;
}

static long ioc_mem(struct scenic_file *f, void __user *arg, bool reg)
{
	struct scenic_mem m;
	int err;

	if (!f->admin)
		return -EPERM;
	if (copy_from_user(&m, arg, sizeof(m)))
		return -EFAULT;
	if (!reg)
		return scenic_mem_unregister(f, m.id);
	err = scenic_mem_register(f, &m);
	if (err)
		return err;
	if (copy_to_user(arg, &m, sizeof(m))) {
		scenic_mem_unregister(f, m.id);
		return -EFAULT;
	}
	return 0;
}

static long scenic_ioctl_locked(struct scenic_file *f, unsigned int cmd, void __user *uarg);

static long scenic_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct scenic_file *f = file->private_data;
	long ret;

	down_read(&f->sd->op_lock);
	ret = f->sd->gone ? -ENODEV : scenic_ioctl_locked(f, cmd, (void __user *)arg);
	up_read(&f->sd->op_lock);
	return ret;
}

static long scenic_ioctl_locked(struct scenic_file *f, unsigned int cmd, void __user *uarg)
{
	switch (cmd) {
	case SCENIC_IOC_INFO:
		return ioc_info(f, uarg);
	case SCENIC_IOC_GRANT_SLOT:
		return ioc_grant(f, uarg);
	case SCENIC_IOC_WAIT:
		return ioc_wait(f, uarg);
	case SCENIC_IOC_RESET:
		if (!f->admin)
			return -EPERM;
		return scenic_netdev_reset(f->sd);
	case SCENIC_IOC_SLOT_CMD:
		return ioc_slot_cmd(f, uarg);
	case SCENIC_IOC_STEER:
		return ioc_steer(f, uarg);
	case SCENIC_IOC_MEM_REGISTER:
		return ioc_mem(f, uarg, true);
	case SCENIC_IOC_MEM_UNREGISTER:
		return ioc_mem(f, uarg, false);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations scenic_fops = {
	.owner = THIS_MODULE,
	.open = scenic_open,
	.release = scenic_release,
	.mmap = scenic_mmap,
	.unlocked_ioctl = scenic_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

int scenic_cdev_add(struct scenic_dev *sd)
{
	dev_t devt = MKDEV(MAJOR(scenic_devt), sd->minor);
	int err;

	sd->cdev = cdev_alloc();
	if (!sd->cdev)
		return -ENOMEM;
	sd->cdev->owner = THIS_MODULE;
	sd->cdev->ops = &scenic_fops;
	err = cdev_add(sd->cdev, devt, 1);
	if (err) {
		kobject_put(&sd->cdev->kobj);
		return err;
	}
	mutex_lock(&scenic_devs_lock);
	scenic_devs[sd->minor] = sd;
	mutex_unlock(&scenic_devs_lock);
	sd->chardev = device_create(scenic_class, &sd->pdev->dev, devt, NULL, SCENIC_NAME "%d",
				    sd->minor);
	if (IS_ERR(sd->chardev)) {
		err = PTR_ERR(sd->chardev);
		scenic_cdev_remove(sd);
		return err;
	}
	return 0;
}

/* No new opens; every open file's mappings zapped (later faults: SIGBUS); ioctls -ENODEV. */
void scenic_cdev_remove(struct scenic_dev *sd)
{
	struct scenic_file *f;

	mutex_lock(&scenic_devs_lock);
	scenic_devs[sd->minor] = NULL;
	mutex_unlock(&scenic_devs_lock);
	if (!IS_ERR_OR_NULL(sd->chardev))
		device_destroy(scenic_class, MKDEV(MAJOR(scenic_devt), sd->minor));
	sd->chardev = NULL;
	cdev_del(sd->cdev);
	down_write(&sd->op_lock);
	WRITE_ONCE(sd->gone, true);
	up_write(&sd->op_lock);
	mutex_lock(&sd->files_lock);
	list_for_each_entry(f, &sd->files, node)
		unmap_mapping_range(f->file->f_mapping, 0, 0, 1);
	mutex_unlock(&sd->files_lock);
}

int scenic_cdev_init(void)
{
	int err = alloc_chrdev_region(&scenic_devt, 0, SC_MAX_DEVICES, SCENIC_NAME);

	if (err)
		return err;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
	scenic_class = class_create(SCENIC_NAME);
#else
	scenic_class = class_create(THIS_MODULE, SCENIC_NAME);
#endif
	if (IS_ERR(scenic_class)) {
		unregister_chrdev_region(scenic_devt, SC_MAX_DEVICES);
		return PTR_ERR(scenic_class);
	}
	return 0;
}

void scenic_cdev_exit(void)
{
	class_destroy(scenic_class);
	unregister_chrdev_region(scenic_devt, SC_MAX_DEVICES);
}
