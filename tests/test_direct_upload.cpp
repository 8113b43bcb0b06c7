// Direct decode through compute: frames decoded into PinnedFramePool blocks
// (compute/pinned_pool.hpp) are uploaded straight from the block (no CPU copy) and convert to
// exactly what the copy path makes of the same stream; blocks are reused, bounded, and safe to
// release in any order.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "compute/pinned_pool.hpp"
#include "compute/processor.hpp"
#include "compute_test_util.hpp"
#include "decode/source.hpp"
#include "support/media.hpp"

namespace vfx::test {
namespace {

std::vector<HostFrame> decode(const std::string& path, std::shared_ptr<FrameAllocator> alloc,
                              SourceStats* stats = nullptr, int threads = 0) {
    SourceOptions o;
    o.input = path;
    o.threads = threads;
    o.allocator = std::move(alloc);
    auto src = Source::open(o);
    std::vector<HostFrame> frames;
    while (auto f = src->next())
        frames.push_back(std::move(*f));
    if (stats) *stats = src->stats();
    return frames;
}

bool same_pixels(const Image& a, const Image& b) {
    return a.width == b.width && a.height == b.height && a.format == b.format && a.px == b.px;
}

class DirectUpload : public ::testing::TestWithParam<DirectClip> {
protected:
    void SetUp() override {
        VFX_REQUIRE_CL();
        VFX_REQUIRE_FFMPEG_CLI();
    }
};

// Bit-exact against the copy path of the same stream, through the host-unified upload (PoCL
// here) and the discrete-GPU one (forced), with and without a chain.
TEST_P(DirectUpload, SameOutputAsTheCopyPath) {
    const DirectClip& c = GetParam();
    const std::string path = make_media(c.file, c.args);
    ASSERT_FALSE(path.empty());
    ClContext& cl = *test_cl();
    const std::vector<HostFrame> plain = decode(path, nullptr, nullptr, c.threads);
    auto pool = PinnedFramePool::create(cl);
    SourceStats st;
    const std::vector<HostFrame> direct = decode(path, pool, &st, c.threads);
    ASSERT_EQ(direct.size(), plain.size());
    ASSERT_FALSE(plain.empty());
    EXPECT_EQ(st.frames_direct, c.direct ? st.frames_decoded : 0);

    // A grey source enters a chain as a mosaic (the mono path).
    const char* stencil = plain.front().format.layout == PlaneLayout::gray
                              ? "demosaic=pattern=rggb,gaussian=sigma=1"
                              : "gaussian=sigma=1";
    for (const char* chain : {"", stencil}) {
        for (bool force_copy : {false, true}) {
            SCOPED_TRACE(std::string("chain '") + chain + "'" + (force_copy ? " discrete" : ""));
            FrameProcessor ref_proc(cl, parse_chain(chain), force_copy);
            FrameProcessor proc(cl, parse_chain(chain), force_copy);
            for (size_t i = 0; i < plain.size(); ++i) {
                EXPECT_EQ(direct[i].block != nullptr, c.direct);
                if (c.direct) {
                    EXPECT_TRUE(dynamic_cast<const PinnedBlock*>(direct[i].block.get()));
                }
                const Image want = process(ref_proc, cl, plain[i]);
                const Image got = process(proc, cl, direct[i]);
                EXPECT_TRUE(same_pixels(got, want)) << "frame " << i;
            }
            EXPECT_EQ(ref_proc.upload_stats().direct, 0u);
            EXPECT_EQ(proc.upload_stats().direct, c.direct ? plain.size() : 0u);
            EXPECT_EQ(proc.upload_stats().copied, c.direct ? 0u : plain.size());
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Clips, DirectUpload, ::testing::ValuesIn(direct_clips()),
                         [](const auto& p) { return p.param.name; });

const std::string& clip90() {
    static const std::string p = make_media(
        "direct90.mp4",
        "-f lavfi -i testsrc2=size=160x96:rate=25 -frames:v 90 -c:v libx264 -preset ultrafast "
        "-pix_fmt yuv420p");
    return p;
}

TEST(DirectUploadPool, BlocksAreReusedAndThePoolStopsGrowing) {
    VFX_REQUIRE_CL();
    VFX_REQUIRE_FFMPEG_CLI();
    ClContext& cl = *test_cl();
    auto pool = PinnedFramePool::create(cl);
    FrameProcessor proc(cl, Chain{});
    SourceOptions o;
    o.input = clip90();
    o.allocator = pool;
    o.loop = true;
    auto src = Source::open(o);
    const FrameGeometry g = make_geometry(160, 96, WorkFormat::rgba8);
    ClMem target = cl.buffer(CL_MEM_READ_WRITE, g.size_bytes());
    size_t blocks_after_first_pass = 0;
    for (int i = 0; i < 270; ++i) {  // three passes over the clip
        std::optional<HostFrame> f = src->next();
        ASSERT_TRUE(f);
        ASSERT_TRUE(f->block) << "frame " << i;
        PendingFrame p = proc.enqueue(*f, target.get(), g);
        f.reset();  // the PendingFrame holds the frame until it is done
        p.wait();
        if (i == 89) blocks_after_first_pass = pool->stats().blocks;
    }
    const PinnedFramePool::Stats s = pool->stats();
    EXPECT_EQ(proc.upload_stats().direct, 270u);
    // The decoder's references, its threads' frames and the queue: a bounded working set,
    // made in the first pass and reused from then on.
    EXPECT_GT(s.created, 0u);
    EXPECT_LE(s.created, 48u);
    EXPECT_EQ(s.blocks, s.created);  // none released: the bound was never near
    EXPECT_LE(s.blocks, blocks_after_first_pass + 4);
    EXPECT_GE(s.reused, 270u - s.created);
    EXPECT_EQ(s.refused, 0u);
    src.reset();
    EXPECT_EQ(pool->stats().blocks_in_use, 0u);
}

TEST(DirectUploadPool, AtItsBoundFramesFallBackAndStillConvert) {
    VFX_REQUIRE_CL();
    VFX_REQUIRE_FFMPEG_CLI();
    ClContext& cl = *test_cl();
    const std::string path = clip90();
    const std::vector<HostFrame> plain = decode(path, nullptr);
    // Room for about three 160x96 blocks: holding every frame exhausts it.
    auto pool = PinnedFramePool::create(cl, 3 * PinnedFramePool::kGranule);
    SourceStats st;
    const std::vector<HostFrame> direct = decode(path, pool, &st);
    ASSERT_EQ(direct.size(), plain.size());
    EXPECT_GT(st.frames_direct, 0);
    EXPECT_LT(st.frames_direct, st.frames_decoded);
    EXPECT_GT(pool->stats().refused, 0u);
    EXPECT_LE(pool->stats().bytes, pool->max_bytes());
    FrameProcessor ref_proc(cl, Chain{});
    FrameProcessor proc(cl, Chain{});
    for (size_t i = 0; i < plain.size(); i += 7)
        EXPECT_TRUE(same_pixels(process(proc, cl, direct[i]), process(ref_proc, cl, plain[i])))
            << "frame " << i << (direct[i].block ? " (direct)" : " (copied)");
}

// Every owner gone in another order while a frame's upload and conversion may be in flight:
// nothing dangles, the result is right, and the pool goes away with the last block.
TEST(DirectUploadPool, AnyDestructionOrderIsSafe) {
    VFX_REQUIRE_CL();
    VFX_REQUIRE_FFMPEG_CLI();
    ClContext& cl = *test_cl();
    const std::string path = clip90();
    const std::vector<HostFrame> plain = decode(path, nullptr);
    FrameProcessor ref_proc(cl, Chain{});
    const Image want = process(ref_proc, cl, plain[3]);
    const FrameGeometry g = make_geometry(160, 96, WorkFormat::rgba8);

    for (int order = 0; order < 3; ++order) {
        SCOPED_TRACE("order " + std::to_string(order));
        auto pool = PinnedFramePool::create(cl);
        std::weak_ptr<PinnedFramePool> weak = pool;
        SourceOptions o;
        o.input = path;
        o.allocator = pool;
        auto src = Source::open(o);
        auto proc = std::make_unique<FrameProcessor>(cl, Chain{});
        std::optional<HostFrame> frame;
        for (int i = 0; i <= 3; ++i)
            frame = src->next();
        ASSERT_TRUE(frame && frame->block);
        ClMem target = cl.buffer(CL_MEM_READ_WRITE, g.size_bytes());
        PendingFrame pending = proc->enqueue(*frame, target.get(), g);
        switch (order) {
            case 0:  // the pool's owner, the source, the frame, the processor, then the work
                o.allocator.reset();
                pool.reset();
                src.reset();
                frame.reset();
                proc.reset();
                EXPECT_FALSE(weak.expired());  // the in-flight frame's block holds it
                pending.wait();
                break;
            case 1:  // the work, the processor, the frame, the source, then the pool
                pending.wait();
                pending = PendingFrame{};
                proc.reset();
                frame.reset();
                src.reset();
                EXPECT_EQ(pool->stats().blocks_in_use, 0u);
                break;
            default:  // the frame and the source first, the pool's owner while in flight
                frame.reset();
                src.reset();
                o.allocator.reset();
                pool.reset();
                pending.wait();
                proc.reset();
                break;
        }
        EXPECT_TRUE(same_pixels(download_image(cl, target.get(), g), want));
        pending = PendingFrame{};
        o.allocator.reset();
        pool.reset();
        EXPECT_TRUE(weak.expired());
    }
}

TEST(DirectUploadPool, ConcurrentAllocationsAndReleases) {
    VFX_REQUIRE_CL();
    ClContext& cl = *test_cl();
    auto pool = PinnedFramePool::create(cl, size_t{64} << 20);
    std::atomic<int> got{0}, refused{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 6; ++t)
        threads.emplace_back([&, t] {
            std::mt19937 rng(static_cast<unsigned>(t));
            std::uniform_int_distribution<size_t> size(1, size_t{3} << 20);
            std::vector<std::shared_ptr<FrameBlock>> held;
            for (int i = 0; i < 200; ++i) {
                std::shared_ptr<FrameBlock> b = pool->allocate(size(rng));
                if (!b) {
                    ++refused;
                    held.clear();
                    continue;
                }
                ++got;
                b->data()[0] = static_cast<uint8_t>(i);
                b->data()[b->size() - 1] = static_cast<uint8_t>(t);
                held.push_back(std::move(b));
                if (held.size() > 3) held.erase(held.begin());
            }
        });
    for (auto& th : threads)
        th.join();
    const PinnedFramePool::Stats s = pool->stats();
    EXPECT_EQ(s.blocks_in_use, 0u);
    EXPECT_LE(s.bytes, pool->max_bytes());
    EXPECT_EQ(static_cast<uint64_t>(got.load()), s.created + s.reused);
    EXPECT_EQ(static_cast<uint64_t>(refused.load()), s.refused);
    EXPECT_GT(s.reused, 0u);
}

}  // namespace
}  // namespace vfx::test
