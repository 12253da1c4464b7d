// SPDX-License-Identifier: GPL-2.0
/*
 * scenic_mem.c: host memory registered for the device's DMA (SCENIC_IOC_MEM_REGISTER): an SCU's
 * host buffers and F_STAGE_DMA package images on the card.
 *
 * A registration pins the user pages (FOLL_LONGTERM: they stay put while the device may access
 * them), builds a scatter table and maps it for the PCI function; the device sees bus addresses.
 * Each file owns its registrations: unregister or close releases them (unmap, then unpin,
 * marking the pages dirty since the device may have written them). Bounded per file:
 * SC_MEM_MAX_REGIONS registrations and SC_MEM_MAX_BYTES in all.
 *
 * On ivshmem the device (the emulator) does no DMA: the mapping is made and checked, not used.
 */
#include <linux/dma-mapping.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include "scenic.h"
#include "scenic_abi.h"

struct scenic_mem_region {
	struct list_head node;
	u32 id;
	u64 len;
	unsigned long npages;
	struct page **pages;
	struct sg_table sgt;
};

static void mem_free(struct scenic_dev *sd, struct scenic_mem_region *r)
{
	dma_unmap_sgtable(&sd->pdev->dev, &r->sgt, DMA_BIDIRECTIONAL, 0);
	sg_free_table(&r->sgt);
	unpin_user_pages_dirty_lock(r->pages, r->npages, true);
	kvfree(r->pages);
	kfree(r);
}

static int mem_pin_and_map(struct scenic_dev *sd, struct scenic_mem_region *r, u64 addr)
{
	unsigned long offset = addr & ~PAGE_MASK;
	long pinned;
	int err;

	r->pages = kvcalloc(r->npages, sizeof(*r->pages), GFP_KERNEL);
	if (!r->pages)
		return -ENOMEM;
	pinned = pin_user_pages_fast(addr & PAGE_MASK, r->npages, FOLL_WRITE | FOLL_LONGTERM,
				     r->pages);
	if (pinned != r->npages) {
		if (pinned > 0)
			unpin_user_pages(r->pages, pinned);
		err = pinned < 0 ? (int)pinned : -EFAULT;
		goto free_pages;
	}
	err = sg_alloc_table_from_pages(&r->sgt, r->pages, r->npages, offset, r->len, GFP_KERNEL);
	if (err)
		goto unpin;
	err = dma_map_sgtable(&sd->pdev->dev, &r->sgt, DMA_BIDIRECTIONAL, 0);
	if (err)
		goto free_table;
	return 0;

free_table:
	sg_free_table(&r->sgt);
unpin:
	unpin_user_pages(r->pages, r->npages);
free_pages:
	kvfree(r->pages);
	return err;
}

int scenic_mem_register(struct scenic_file *f, struct scenic_mem *req)
{
	struct scenic_dev *sd = f->sd;
	struct scenic_mem_region *r;
	u64 end;
	int count = 0, err;

	if (req->len == 0 || check_add_overflow(req->addr, req->len, &end) ||
	    req->len > SC_MEM_MAX_BYTES)
		return -EINVAL;
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	r->len = req->len;
	r->npages = (PAGE_ALIGN(end) - (req->addr & PAGE_MASK)) >> PAGE_SHIFT;

	mutex_lock(&f->mem_lock);
	{
		struct scenic_mem_region *it;

		list_for_each_entry(it, &f->mems, node)
			count++;
	}
	if (count >= SC_MEM_MAX_REGIONS || f->mem_bytes + r->len > SC_MEM_MAX_BYTES) {
		err = -ENOSPC;
		goto fail;
	}
	err = mem_pin_and_map(sd, r, req->addr);
	if (err)
		goto fail;
	r->id = ++f->next_mem_id;
	f->mem_bytes += r->len;
	list_add(&r->node, &f->mems);
	req->id = r->id;
	req->dma_addr = sg_dma_address(r->sgt.sgl);
	req->segments = r->sgt.nents;
	mutex_unlock(&f->mem_lock);
	return 0;

fail:
	mutex_unlock(&f->mem_lock);
	kfree(r);
	return err;
}

int scenic_mem_unregister(struct scenic_file *f, u32 id)
{
	struct scenic_mem_region *r;

	mutex_lock(&f->mem_lock);
	list_for_each_entry(r, &f->mems, node) {
		if (r->id == id) {
			list_del(&r->node);
			f->mem_bytes -= r->len;
			mutex_unlock(&f->mem_lock);
			mem_free(f->sd, r);
			return 0;
		}
	}
	mutex_unlock(&f->mem_lock);
	return -ENOENT;
}

void scenic_mem_release_all(struct scenic_file *f)
{
	struct scenic_mem_region *r, *tmp;

	mutex_lock(&f->mem_lock);
	list_for_each_entry_safe(r, tmp, &f->mems, node) {
		list_del(&r->node);
		mem_free(f->sd, r);
	}
	f->mem_bytes = 0;
	mutex_unlock(&f->mem_lock);
}
