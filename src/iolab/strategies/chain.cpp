// write.chain: the records written through a chain of buffering and compression layers.
#include "iolab/chain/chain.hpp"
#include "iolab/strategies/common.hpp"
#include "iolab/strategies/strategy.hpp"

namespace iolab {

namespace {

void write_chain(const Job& j) {
    const auto layers = parse_chain(j.records_of().chain);
    const sys::Fd out = detail::open_dst(j.dst);
    const auto chain = build_chain(layers, out);
    if (j.records_of().feed_bytes) {
        j.records->for_each_piece(0, j.records->size(), [&](const std::byte* p, std::size_t n) {
            for (const std::byte* e = p + n; p != e; ++p) chain->put(*p);
        });
    } else {
        j.records->for_each_record([&](const std::byte* p, std::size_t n) { chain->write(p, n); });
    }
    chain->finish();
}

FileDigest decode_chain_output(const Job& j) { return decode_chain_file(parse_chain(j.records_of().chain), j.dst); }

// One entry per row, fields in declaration order.
// clang-format off
constexpr StrategyDef kChains[] = {
    {.name = "write.chain", .params = kParamRecord | kParamChain | kParamFeed, .run = write_chain,
     .decode_output = decode_chain_output,
     .description = "records (or single bytes) through a chain of layers, e.g. buffer:64K>deflate:6>file",
     .jvm = "new BufferedOutputStream(new DeflaterOutputStream(new FileOutputStream(f))) and the other orders"},
};
// clang-format on

}  // namespace

void register_chain_strategies(Registry& r) { r.add(kChains); }

}  // namespace iolab
