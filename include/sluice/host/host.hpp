// sluice/host/host.hpp: the CPU backend, every operation (see docs/host.md).
#pragma once

#include <sluice/host/cache_info.hpp>
#include <sluice/host/histogram.hpp>
#include <sluice/host/huge_pages.hpp>
#include <sluice/host/multireduce.hpp>
#include <sluice/host/multiscan.hpp>
#include <sluice/host/multisplit.hpp>
#include <sluice/host/radix_sort.hpp>
#include <sluice/host/reduce.hpp>
#include <sluice/host/scan.hpp>
#include <sluice/host/scatter.hpp>
