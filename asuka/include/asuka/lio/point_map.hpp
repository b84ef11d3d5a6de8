#pragma once
// The one interface of the filter frontends' LiDAR maps. A map is a plain class (no virtual calls on
// the k-NN hot path) that offers:
//
//   using Params = ...;                                    constructed as Map(Params)
//   std::size_t insert(const std::vector<Eigen::Vector3f>& points_world,
//                      std::vector<std::uint32_t>* kept = nullptr);   returns points kept; `kept`
//                                           gets their indices, ascending (the run's map record)
//   std::size_t knn(const Eigen::Vector3f& query, std::size_t k, double max_distance,
//                   std::vector<Eigen::Vector3f>& out) const;   nearest first, returns the count
//   std::size_t remove_outside(const Eigen::Vector3d& center);   the local-map box around the sensor
//   std::vector<Eigen::Vector3f> points() const;                  every map point (saving)
//   std::size_t size() const;                                     map points
//
// and optionally knn_wide(query, k, max_distance, out), the same search over a wider block (#17: the
// wide reach of a degenerate scan, plane_association.hpp); VoxelMap and OctVoxMap have it.
//
// VoxelMap and KdTreeMap are such maps; plane association (find_plane), the filter-frontend skeleton
// (FilterFrontend<State, Map>) and tests/lio/test_point_maps.cpp take any of them. is_point_map_v
// checks the interface at compile time (C++17's stand-in for a concept).

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include <Eigen/Core>

namespace asuka::lio {

template <class Map, class = void>
struct is_point_map : std::false_type {};

template <class Map>
struct is_point_map<
    Map, std::void_t<typename Map::Params,
                     decltype(std::declval<const Map&>().knn(std::declval<const Eigen::Vector3f&>(), std::size_t{}, double{},
                                                             std::declval<std::vector<Eigen::Vector3f>&>())),
                     decltype(std::declval<Map&>().insert(std::declval<const std::vector<Eigen::Vector3f>&>(),
                                                          std::declval<std::vector<std::uint32_t>*>())),
                     decltype(std::declval<Map&>().remove_outside(std::declval<const Eigen::Vector3d&>())),
                     decltype(std::declval<const Map&>().points()), decltype(std::declval<const Map&>().size()),
                     decltype(Map(std::declval<const typename Map::Params&>()))>> : std::true_type {};

template <class Map>
inline constexpr bool is_point_map_v = is_point_map<Map>::value;

}  // namespace asuka::lio
