#include "compute/pointwise.hpp"

#include <fmt/format.h>

#include <set>

#include "compute/chain.hpp"
#include "compute/cl_args.hpp"
#include "compute/cl_context.hpp"
#include "compute/isp_common.hpp"
#include "core/error.hpp"

namespace vfx {

namespace {

// KernelVariant::applies of candidates for colour frames, 8-bit frames, and both.
bool colour(const std::string& o) {
    return build_option(o, "MONO") == 0;
}
bool eight_bit(const std::string& o) {
    return build_option(o, "WORK16") == 0;
}
bool rgba8(const std::string& o) {
    return colour(o) && eight_bit(o);
}

// Pixels per work-item and work-group shapes the tuner chooses among. PX > 1 loads and stores
// 4 pixels (colour: 16 or 32 bytes) per vector access; PX = 1 is the plain form (what a CPU
// device, which vectorises across work-items, tends to prefer). QW=1|2|3 (colour, PX > 1): the 4
// pixels as words (common.h's quads as words: one 16 / 32-byte access on NVIDIA, where a
// uchar16 / ushort16 one is split into 4-byte pieces); on a mosaic QW changes nothing, so those
// candidates are offered to colour frames only (a mosaic run would build and measure copies).
std::vector<KernelVariant> variants() {
    return {
        // PX=16 and PX=8 64x4 lost on every device measured (H100, PoCL: 1.4x the best or
        // worse) and are left out.
        {"-DPX=4", {64, 4}, {4, 1}},
        {"-DPX=4", {128, 2}, {4, 1}},
        {"-DPX=8", {32, 8}, {8, 1}},
        {"-DPX=1", {32, 8}, {1, 1}},
        {"-DPX=4 -DQW=1", {64, 4}, {4, 1}, colour},
        {"-DPX=4 -DQW=2", {64, 4}, {4, 1}, colour},
        {"-DPX=4 -DQW=1", {128, 2}, {4, 1}, colour},
        {"-DPX=4 -DQW=2", {128, 2}, {4, 1}, colour},
        // QW=3: channels in by byte permutes (common.h's pixw_to_float) and, in RGBA8, out by
        // byte permutes too (float_to_pixw), one instruction fewer a channel each way; in
        // RGBA16 out as QW=1 (a chain that starts with a table op takes its stored values by
        // pixw_channels' shifts and masks).
        {"-DPX=4 -DQW=3", {64, 4}, {4, 1}, colour},
        {"-DPX=4 -DQW=3", {128, 2}, {4, 1}, colour},
        // PF=R: each work-item first fetches into L2 the sector of its pixels R rows further
        // down (common.h's vfx_prefetch_l2: no register held, no wait; nothing off NVIDIA), so
        // that the groups that start there a fraction of a wave later (a wave of 64x4 groups
        // is about 280 rows of a 4K frame on 132 SMs) find their input in L2 rather than wait
        // on DRAM. H200 4K, the bench with each forced in three alternating rounds: the fused
        // run of four 0.0282-0.0284 ms (69 % of the copy) -> 0.0272-0.0273 (72-73 %) with
        // PF 128, 0.0275-0.0276 with 256, 0.0277 with 512 (benchmarks/2026-11-28-s21).
        {"-DPX=4 -DQW=3 -DPF=128", {64, 4}, {4, 1}, colour},
        {"-DPX=4 -DQW=3 -DPF=256", {64, 4}, {4, 1}, colour},
    };
}

// A run with a table op (PointwiseOp's "table" argument) has these too. LT=1: 8-bit tables
// copied into __local memory by each work-group, so that a lookup is one shared-memory load of
// the byte index itself, where a global one takes a 64-bit address (two adds on NVIDIA: 24 of the
// 255 instructions of four pixels of the bench's fused run, BENCHMARKS.md, fourteenth
// session). A 16-bit table (65536 entries) stays in global memory, so LT is offered to 8-bit
// frames only.
std::vector<KernelVariant> table_variants() {
    return {
        {"-DPX=4 -DQW=3 -DLT=1", {64, 4}, {4, 1}, rgba8},
        {"-DPX=4 -DQW=3 -DLT=1", {128, 2}, {4, 1}, rgba8},
        {"-DPX=4 -DLT=1", {64, 4}, {4, 1}, eight_bit},
    };
}

bool has_table(const std::vector<PointwiseOp>& ops) {
    for (const PointwiseOp& op : ops)
        for (const std::string& t : op.arg_types)
            if (t == kTableArg) return true;
    return false;
}

std::vector<KernelVariant> variants(bool tables) {
    std::vector<KernelVariant> v = variants();
    if (tables)
        for (KernelVariant& t : table_variants())
            v.push_back(std::move(t));
    return v;
}

// Defined before the ops' files: the address space of their tables.
const char* kPrelude = R"CL(
#if defined(LT) && LT && !WORK16
#define VFX_LT 1
#define VFX_TABLE_AS __local
#else
#define VFX_LT 0
#define VFX_TABLE_AS __global
#endif
)CL";

const char* kKernelTemplate = R"CL(
// ---- the generated part ----
#if MONO
typedef mono_t unit_t;
#else
typedef pix_t unit_t;
#endif
#if WORK16
typedef ushort16 elem16_t;
typedef ushort4 mono4_t;
#else
typedef uchar16 elem16_t;
typedef uchar4 mono4_t;
#endif

// The state of a pixel between ops: `s` (uint4 / uint), stored values as integers, or `v` (float4
// / float), what a float op computed. A float op after another takes its stored values:
// convert_float4(vfx_level4(v)), on NVIDIA one F2IP and one I2FP per channel (the SASS read in
// BENCHMARKS.md, tenth 2026-11-26 session); an op on stored values (a table) takes
// s = vfx_level4(v). See vfx_level in common.h. vfx_pix / vfx_mono: stored values that are in
// range already to the working type (no saturation).
#if WORK16
#define vfx_pix convert_ushort4
#define vfx_mono convert_ushort
#else
#define vfx_pix convert_uchar4
#define vfx_mono convert_uchar
#endif

inline unit_t vfx_apply(unit_t p, int x, int y PARAMS) {
#if MONO
MONO_STEPS
#else
RGBA_STEPS
    q.w = p.w;
    return q;
#endif
}

#if QW && !MONO
// Stored values s of R, G, B and the alpha of pixel word w as a pixel word (QW=3, RGBA8: three
// byte permutes).
inline pixw_t vfx_store_w(uint4 s, pixw_t w) {
#if QW == 3 && !WORK16
    return vfx_prmt_word(s.x, s.y, s.z, w);
#else
    s.w = pixw_channels(w).w;
    return pixw_pack(s);
#endif
}

// The same steps on a pixel word (common.h's quads as words), with the same values.
inline pixw_t vfx_apply_w(pixw_t w, int x, int y PARAMS) {
RGBAW_STEPS
}
#endif

__kernel void pointwise(__global const uchar* src, int src_pitch, __global uchar* dst,
                        int dst_pitch, int width, int height KPARAMS) {
#if VFX_LT
    // Every work-item of the group takes part in the tables' copy, then waits at the barrier
    // (before any of them leaves below).
    const int lid = (int)(get_local_id(1) * get_local_size(0) + get_local_id(0));
    const int lsize = (int)(get_local_size(0) * get_local_size(1));
TABLES_COPY
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
TABLES_BIND
    const int x0 = (int)get_global_id(0) * PX;
    const int y = (int)get_global_id(1);
    if (y >= height || x0 >= width) return;
    __global const unit_t* s = (__global const unit_t*)(src + (size_t)y * (size_t)src_pitch);
#if defined(PF) && PF
    // PF (variants()): the prefetch of the input R = PF rows down, before this item's own load.
    if (y + PF < height)
        vfx_prefetch_l2((__global const uchar*)(s + x0) + (size_t)PF * (size_t)src_pitch);
#endif
    __global unit_t* d = (__global unit_t*)(dst + (size_t)y * (size_t)dst_pitch);
#if PX > 1
    if (x0 + PX <= width) {
        // Four units per access: x0 is a multiple of 4 and rows start 256-byte aligned, so the
        // vector pointers are aligned to their size.
#pragma unroll
        for (int c = 0; c < PX / 4; ++c) {
            const int x = x0 + 4 * c;
#if MONO
            const mono4_t t = *(__global const mono4_t*)(s + x);
            *(__global mono4_t*)(d + x) =
                (mono4_t)(vfx_apply(t.s0, x, y ARGS), vfx_apply(t.s1, x + 1, y ARGS),
                          vfx_apply(t.s2, x + 2, y ARGS), vfx_apply(t.s3, x + 3, y ARGS));
#elif QW
            const quadw_t t = *(__global const quadw_t*)(s + x);
            *(__global quadw_t*)(d + x) = (quadw_t)(
                vfx_apply_w(QW_PIX(t, 0), x, y ARGS), vfx_apply_w(QW_PIX(t, 1), x + 1, y ARGS),
                vfx_apply_w(QW_PIX(t, 2), x + 2, y ARGS), vfx_apply_w(QW_PIX(t, 3), x + 3, y ARGS));
#else
            const elem16_t t = *(__global const elem16_t*)(s + x);
            *(__global elem16_t*)(d + x) =
                (elem16_t)(vfx_apply(t.s0123, x, y ARGS), vfx_apply(t.s4567, x + 1, y ARGS),
                           vfx_apply(t.s89ab, x + 2, y ARGS), vfx_apply(t.scdef, x + 3, y ARGS));
#endif
        }
        return;
    }
#endif
    // PX = 1, or the row's last work-item when the width is not a multiple of PX.
    const int end = min(x0 + PX, width);
    for (int x = x0; x < end; ++x) d[x] = vfx_apply(s[x], x, y ARGS);
}
)CL";

void replace_all(std::string& s, std::string_view what, const std::string& with) {
    for (size_t pos = s.find(what); pos != std::string::npos; pos = s.find(what, pos + with.size()))
        s.replace(pos, what.size(), with);
}

// One form of the generated apply function (vfx_apply, or vfx_apply_w for pixel words): the input
// as stored values (s) and as floats (v), the conversions between them, and the result from
// either.
struct StepForm {
    const char* s_type;
    const char* v_type;
    const char* suffix;    // NAME_<suffix>
    const char* begin_s;   // the input's stored values
    const char* begin_v;   // the input as floats
    const char* level;     // floats -> stored values (rounded, saturated)
    const char* to_float;  // stored values -> floats (exact)
    const char* end_s;     // the result from s
    const char* end_v;     // the result from v (rounded, saturated)
};

const StepForm kRgbaForm{"uint4",
                         "float4",
                         "rgba",
                         "convert_uint4(p)",
                         "convert_float4(p)",
                         "vfx_level4",
                         "convert_float4",
                         "    pix_t q = vfx_pix(s);\n",
                         "    pix_t q = convert_pix_sat_rte(v);\n"};
const StepForm kWordForm{"uint4",
                         "float4",
                         "rgba",
                         "pixw_channels(w)",
                         "pixw_to_float(w)",
                         "vfx_level4",
                         "convert_float4",
                         "    return vfx_store_w(s, w);\n",
                         "    return float_to_pixw(v, w);\n"};
const StepForm kMonoForm{"uint",
                         "float",
                         "mono",
                         "convert_uint(p)",
                         "convert_float(p)",
                         "vfx_level",
                         "convert_float",
                         "    return vfx_mono(s);\n",
                         "    return convert_mono_sat_rte(v);\n"};

// The ops in order, each taking what the one before stored: a float op the stored values as
// floats, a stored op (PointwiseOp::stored) the stored values themselves. `call_args[i]`: op i's
// arguments.
std::string steps(const std::vector<PointwiseOp>& ops, const std::vector<std::string>& call_args,
                  const StepForm& f) {
    enum class State { input, floats, stored } st = State::input;
    std::string out = fmt::format("    {} s;\n    {} v;\n", f.s_type, f.v_type);
    for (size_t i = 0; i < ops.size(); ++i) {
        const PointwiseOp& op = ops[i];
        if (op.stored) {
            if (st == State::input) out += fmt::format("    s = {};\n", f.begin_s);
            if (st == State::floats) out += fmt::format("    s = {}(v);\n", f.level);
            out += fmt::format("    s = {}_{}(s, x, y{});\n", op.name, f.suffix, call_args[i]);
            st = State::stored;
        } else {
            if (st == State::input) out += fmt::format("    v = {};\n", f.begin_v);
            if (st == State::floats)
                out += fmt::format("    v = {}({}(v));\n", f.to_float, f.level);
            if (st == State::stored) out += fmt::format("    v = {}(s);\n", f.to_float);
            out += fmt::format("    v = {}_{}(v, x, y{});\n", op.name, f.suffix, call_args[i]);
            st = State::floats;
        }
    }
    return out + (st == State::stored ? f.end_s : f.end_v);
}

}  // namespace

std::vector<std::string> PointwiseFilter::variant_labels(bool tables, WorkFormat f) {
    const std::string options = isp::format_options(f);
    std::vector<std::string> out;
    for (const KernelVariant& v : variants(tables))
        if (!v.applies || v.applies(options)) out.push_back(v.label());
    return out;
}

PointwiseFilter::PointwiseFilter(std::vector<PointwiseOp> ops) : ops_(std::move(ops)) {
    if (ops_.empty()) fail("a point-wise stage needs at least one operation");
}

std::string PointwiseFilter::source(ClContext& cl, bool mono) const {
    std::string text;
    std::set<std::string> files;
    for (const PointwiseOp& op : ops_)
        if (files.insert(op.file).second)
            text += fmt::format("#line 1 \"{}\"\n{}\n", op.file, cl.source_snapshot(op.file));
    // params: the apply functions' (a table in VFX_TABLE_AS); kparams: the kernel's (a table in
    // global memory); args: what the kernel passes (a table: its copy in __local with LT).
    std::string params, kparams, args, copy, bind;
    std::vector<std::string> call_args;
    for (size_t i = 0; i < ops_.size(); ++i) {
        const PointwiseOp& op = ops_[i];
        if (mono && !op.takes_mono) fail("'{}' does not take a mosaic", op.name);
        call_args.emplace_back();
        for (size_t k = 0; k < op.arg_types.size(); ++k) {
            call_args.back() += fmt::format(", a{}_{}", i, k);
            if (op.arg_types[k] != kTableArg) {
                params += fmt::format(", {} a{}_{}", op.arg_types[k], i, k);
                kparams += fmt::format(", {} a{}_{}", op.arg_types[k], i, k);
                args += fmt::format(", a{}_{}", i, k);
                continue;
            }
            params += fmt::format(", VFX_TABLE_AS const mono_t* a{}_{}", i, k);
            kparams += fmt::format(", __global const mono_t* a{}_{}", i, k);
            args += fmt::format(", t{}_{}", i, k);
            // 8-bit: 256 entries, 64 words.
            copy += fmt::format(
                "    __local uint t{0}_{1}_w[64];\n"
                "    for (int i = lid; i < 64; i += lsize)\n"
                "        t{0}_{1}_w[i] = ((__global const uint*)a{0}_{1})[i];\n",
                i, k);
            bind += fmt::format(
                "#if VFX_LT\n"
                "    __local const mono_t* const t{0}_{1} = (__local const mono_t*)t{0}_{1}_w;\n"
                "#else\n"
                "    __global const mono_t* const t{0}_{1} = a{0}_{1};\n"
                "#endif\n",
                i, k);
        }
    }
    const std::string rgba = steps(ops_, call_args, kRgbaForm);
    const std::string rgbaw = steps(ops_, call_args, kWordForm);
    const std::string monos = steps(ops_, call_args, kMonoForm);
    std::string body = kKernelTemplate;
    // (Every form is generated, but only those the kernel compiles go into it: a mosaic op may
    // lack its colour function and the other way round.)
    replace_all(body, "RGBA_STEPS", mono ? std::string("    pix_t q = p;") : rgba);
    replace_all(body, "RGBAW_STEPS", mono ? std::string("    return w;") : rgbaw);
    replace_all(body, "MONO_STEPS", mono ? monos : std::string("    return p;"));
    replace_all(body, " PARAMS)", params + ")");
    replace_all(body, " KPARAMS)", kparams + ")");
    replace_all(body, "TABLES_COPY\n", copy);
    replace_all(body, "TABLES_BIND\n", bind);
    replace_all(body, " ARGS)", args + ")");
    return kPrelude + text + "#line 1 \"pointwise (generated)\"\n" + body;
}

void PointwiseFilter::enqueue(FilterIo& io) {
    const bool mono = is_mono(io.g.format);
    std::unique_ptr<TunedKernel>& tk = kernel_[mono ? 1 : 0];
    if (!tk) {
        // The generated text is registered under a name derived from its content, so equal
        // runs share one program and an edited kernel file (hot reload) gives a new one.
        const std::string text = source(io.cl, mono);
        const std::string name = fmt::format("pointwise-{:016x}.cl", stable_hash(text));
        io.cl.add_source(name, text);
        tk = std::make_unique<TunedKernel>(name, "pointwise", variants(has_table(ops_)));
    }
    const std::string options = isp::format_options(io.g.format);
    const int bits = io.bits();
    io.events.push_back(tk->enqueue(
        io.cl, io.queue, options, io.g.width, io.g.height, [&](cl_kernel k, std::array<size_t, 2>) {
            set_args(k, io.src, static_cast<cl_int>(io.g.pitch), io.dst,
                     static_cast<cl_int>(io.dst_geometry().pitch), static_cast<cl_int>(io.g.width),
                     static_cast<cl_int>(io.g.height));
            cl_uint next = 6;
            for (const PointwiseOp& op : ops_) {
                if (op.set_args) op.set_args(k, next, io.g.format, bits);
                next += static_cast<cl_uint>(op.arg_types.size());
            }
        }));
    last_ = tk->last_choice();
}

std::vector<ChainStage> make_stages(ClContext& cl, const Chain& chain, bool fuse,
                                    const std::function<std::string(size_t)>& stage_name) {
    std::vector<ChainStage> out;
    for (size_t i = 0; i < chain.filters.size(); ++i) {
        std::unique_ptr<GpuFilter> f = chain.filters[i].info->factory(cl, chain.filters[i]);
        auto* pw = dynamic_cast<PointwiseFilter*>(f.get());
        auto* prev = fuse && pw && !out.empty()
                         ? dynamic_cast<PointwiseFilter*>(out.back().filter.get())
                         : nullptr;
        if (prev) {
            std::vector<PointwiseOp> ops = prev->ops();
            ops.insert(ops.end(), pw->ops().begin(), pw->ops().end());
            out.back().filter = std::make_unique<PointwiseFilter>(std::move(ops));
            out.back().name += "+" + stage_name(i);
            ++out.back().count;
            continue;
        }
        out.push_back({stage_name(i), std::move(f), i, 1});
    }
    return out;
}

}  // namespace vfx
