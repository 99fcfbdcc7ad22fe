// simbody_scene.cpp: build a contactsim JSON scene (docs/scene-format.md) in Simbody 3.7 and
// integrate it, as an independent check of contactsim's dynamics (tools/compare_simbody.py).
//
//   simbody_scene SCENE.json [-o OUT.csv] [--duration T] [--report-interval DT]
//                 [--integrator rkmerson|rkf|rk3|cpodes|verlet] [--accuracy A]
//                 [--contact-model NAME] [--hc-clamped-friction]
//
// The CSV has contactsim's columns for the same rows: t, then per body (scene order)
// B.px B.py B.pz (body origin in Ground), B.qw B.qx B.qy B.qz (orientation in Ground, w >= 0),
// B.vx B.vy B.vz (velocity of the origin in Ground), B.wx B.wy B.wz (angular velocity in
// Ground), B.q0.. B.u0.. (pin and slider coordinates and speeds), then ke and pe (Simbody's
// kinetic and potential energies).
//
// The subset of the scene format translated (anything else is refused, exit 2, naming it):
//   - bodies: mass, com, inertia (diag, matrix, box, sphere, cylinder), visual (ignored);
//     joints weld, pin (about the common z of F and M), slider (along the common x), ball
//     (q = quaternion of M in F, u = w_FM in F), free (q = quaternion then p_FM in F,
//     u = w_FM then v_FM, both in F) with parent_frame, child_frame, q, u, or "initial" (pose
//     and velocity of a free body in Ground).
//   - gravity (Force::UniformGravity).
//   - forces: spring (TwoPointLinearSpring + TwoPointLinearDamper), mobility_spring
//     (MobilityLinearSpring), mobility_damper (MobilityLinearDamper), constant (ConstantForce +
//     ConstantTorque), linear_stop (MobilityLinearStop), linear_bushing (LinearBushing),
//     hunt_crossley (HuntCrossleyForce with a HalfSpace and a Sphere),
//     smooth_sphere_half_space (SmoothSphereHalfSpaceForce; see below).
//   - contacts under the hunt_crossley contact model (one HuntCrossleyForce per contact) or
//     the smooth_sphere_half_space model (one SmoothSphereHalfSpaceForce per point).
//   - simulation: duration and report_interval are used; the tolerances and integrator
//     choice are contactsim's and are ignored (use --accuracy, --integrator).
//   - changes: only an empty array.
// With --hc-clamped-friction, the Hunt-Crossley law is a Force::Custom that repeats Simbody's
// HuntCrossleyForce with friction proportional to the clamped normal force max(0, f), as
// contactsim's is (a cross-check: some Simbody sources compute friction from the unclamped f;
// the installed 3.7 was found to give no friction while f < 0, like contactsim).
//
// smooth_sphere_half_space maps one to one onto SmoothSphereHalfSpaceForce: the nine
// parameters in setParameters' order (plane_strain_modulus = stiffness, dissipation, mu_static,
// mu_dynamic, mu_viscous, transition_velocity, constant_contact_force = cf, hertz_smoothing =
// bd, hunt_crossley_smoothing = bv, defaults those of contactsim, which equal Simbody's), the
// sphere (body, center, radius) and the half space on the plane's body. Simbody's half space is
// x > 0 of its frame H; contactsim's plane frame P has +z outward, so X_BH = X_BP * R_y(+90 deg)
// (R_y(90) x = -z). Checked against Simbody's source (SmoothSphereHalfSpaceForce.cpp, 3.7):
// the same indentation, contact point (centre + (R - x/2) n, n inward), relative velocity of
// the two material points there, force law, friction and pe = (2/5) fh_smooth x.
#include <Simbody.h>
#include <simbody/internal/SmoothSphereHalfSpaceForce.h>
#include <cjson/cJSON.h>

#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

using namespace SimTK;

namespace {

struct Refuse : std::runtime_error {
    explicit Refuse(const std::string& s) : std::runtime_error(s) {}
};

[[noreturn]] void refuse(const char* fmt, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    throw Refuse(buf);
}

// ----------------------------------------------------------------------------------------
// JSON helpers; `path` is the JSON path used in messages

void checkKeys(const cJSON* obj, const std::string& path, std::set<std::string> allowed) {
    if (!cJSON_IsObject(obj)) refuse("%s: expected an object", path.c_str());
    for (const cJSON* c = obj->child; c; c = c->next)
        if (!allowed.count(c->string))
            refuse("%s.%s: key not supported by simbody_scene", path.c_str(), c->string);
}

double num(const cJSON* v, const std::string& path) {
    if (!cJSON_IsNumber(v)) refuse("%s: expected a number", path.c_str());
    return v->valuedouble;
}

double numOr(const cJSON* obj, const char* key, double dflt, const std::string& path) {
    const cJSON* v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return v ? num(v, path + "." + key) : dflt;
}

bool has(const cJSON* obj, const char* key) {
    return cJSON_GetObjectItemCaseSensitive(obj, key) != nullptr;
}

std::vector<double> nums(const cJSON* v, int n, const std::string& path) {
    if (!cJSON_IsArray(v) || (n >= 0 && cJSON_GetArraySize(v) != n))
        refuse("%s: expected an array of %d numbers", path.c_str(), n);
    std::vector<double> out;
    for (const cJSON* c = v->child; c; c = c->next) out.push_back(num(c, path));
    return out;
}

Vec3 vec3(const cJSON* v, const std::string& path) {
    auto a = nums(v, 3, path);
    return Vec3(a[0], a[1], a[2]);
}

Vec3 vec3Or(const cJSON* obj, const char* key, Vec3 dflt, const std::string& path) {
    const cJSON* v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return v ? vec3(v, path + "." + key) : dflt;
}

std::string str(const cJSON* v, const std::string& path) {
    if (!cJSON_IsString(v)) refuse("%s: expected a string", path.c_str());
    return v->valuestring;
}

std::string strOr(const cJSON* obj, const char* key, const std::string& dflt,
                  const std::string& path) {
    const cJSON* v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return v ? str(v, path + "." + key) : dflt;
}

Rotation rotation(const cJSON* r, const std::string& path) {
    checkKeys(r, path, {"axis", "angle", "angle_deg", "quaternion"});
    if (has(r, "quaternion")) {
        auto a = nums(cJSON_GetObjectItemCaseSensitive(r, "quaternion"), 4, path + ".quaternion");
        double n = std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2] + a[3] * a[3]);
        return Rotation(Quaternion(Vec4(a[0] / n, a[1] / n, a[2] / n, a[3] / n), true));
    }
    Vec3 axis = vec3(cJSON_GetObjectItemCaseSensitive(r, "axis"), path + ".axis");
    double angle = has(r, "angle") ? numOr(r, "angle", 0, path)
                                   : numOr(r, "angle_deg", 0, path) * Pi / 180;
    return Rotation(angle, UnitVec3(axis));
}

Transform frame(const cJSON* f, const std::string& path) {
    if (!f) return Transform();
    checkKeys(f, path, {"position", "rotation"});
    Vec3 p = vec3Or(f, "position", Vec3(0), path);
    const cJSON* r = cJSON_GetObjectItemCaseSensitive(f, "rotation");
    return Transform(r ? rotation(r, path + ".rotation") : Rotation(), p);
}

// ----------------------------------------------------------------------------------------
// the model

enum JointType { WELD, PIN, SLIDER, BALL, FREE };

struct BodyRec {
    std::string name;
    JointType type;
    MobilizedBody mb;
    std::vector<double> q, u;  // as given (empty: defaults)
    bool hasInitial = false;
    Transform X_GB;            // "initial"
    Vec3 v_G{0}, w_G{0};
    Transform X_PF, X_BM;
    MobilizedBody parent;
};

// a Hunt-Crossley surface material (unset values are NaN)
struct HcMat {
    double E = NAN, c = NAN, us = NAN, ud = NAN, uv = NAN;
};

// a sphere on a body and a plane on another: what both contact kinds read alike
struct SphereOnPlane {
    std::string name;
    MobilizedBody body, planeBody;
    Transform X_PBplane;  // plane frame on its body
    double radius = 0;
};

struct HcSet : SphereOnPlane {
    std::vector<Vec3> centers;
    HcMat sphere, plane;
    double vt;
};

// one smooth sphere / half-space pair (force element, or one point of a contact)
struct SsSpec : SphereOnPlane {
    Vec3 center{0};
    // stiffness, dissipation, us, ud, uv, vt, cf, bd, bv
    double p[9] = {1, 0, 0, 0, 0, 0.01, 1e-5, 300, 50};
};

const char* const kSsKeys[] = {"plane_strain_modulus", "dissipation", "mu_static", "mu_dynamic",
                               "mu_viscous", "transition_velocity", "constant_contact_force",
                               "hertz_smoothing", "hunt_crossley_smoothing"};

struct Model {
    MultibodySystem system;
    SimbodyMatterSubsystem matter{system};
    GeneralForceSubsystem forces{system};
    std::unique_ptr<GeneralContactSubsystem> contacts;
    std::vector<BodyRec> bodies;
    std::map<std::string, int> index;  // body name -> index in bodies, ground -1
    std::map<std::string, Transform> planes;       // plane name -> frame on its body
    std::map<std::string, std::string> planeBody;  // plane name -> body name
    std::vector<HcSet> hc;
    std::vector<SsSpec> ss;
    State state;
    double duration = 1.0, report = 0.01;
    bool hcClamped = false;
};

MobilizedBody& bodyByName(Model& M, const std::string& name, const std::string& path) {
    if (name == "ground") return M.matter.updGround();
    auto it = M.index.find(name);
    if (it == M.index.end()) refuse("%s: no body named '%s'", path.c_str(), name.c_str());
    return M.bodies[it->second].mb;
}

Inertia readInertia(const cJSON* in, double mass, const std::string& path) {
    checkKeys(in, path, {"diag", "matrix", "box", "sphere", "cylinder"});
    if (cJSON_GetArraySize(in) != 1) refuse("%s: give exactly one form", path.c_str());
    const cJSON* c = in->child;
    std::string k = c->string, p = path + "." + k;
    if (k == "diag") {
        auto a = nums(c, 3, p);
        return Inertia(a[0], a[1], a[2]);
    }
    if (k == "matrix") {
        auto a = nums(c, 6, p);
        return Inertia(a[0], a[1], a[2], a[3], a[4], a[5]);
    }
    if (k == "box") {
        Vec3 h = vec3(c, p);
        return Inertia(mass / 3 * (h[1] * h[1] + h[2] * h[2]), mass / 3 * (h[0] * h[0] + h[2] * h[2]),
                       mass / 3 * (h[0] * h[0] + h[1] * h[1]));
    }
    if (k == "sphere") {
        double r = num(c, p);
        return Inertia(0.4 * mass * r * r);
    }
    checkKeys(c, p, {"radius", "half_length"});
    double r = numOr(c, "radius", NAN, p), h = numOr(c, "half_length", NAN, p);
    double t = mass * (3 * r * r + 4 * h * h) / 12;
    return Inertia(t, t, 0.5 * mass * r * r);
}

void readBody(Model& M, const cJSON* b, int i) {
    std::string path = "bodies[" + std::to_string(i) + "]";
    checkKeys(b, path, {"name", "mass", "com", "inertia", "visual", "joint"});
    BodyRec R;
    R.name = str(cJSON_GetObjectItemCaseSensitive(b, "name"), path + ".name");
    double mass = num(cJSON_GetObjectItemCaseSensitive(b, "mass"), path + ".mass");
    Vec3 com = vec3Or(b, "com", Vec3(0), path);
    Inertia Ic = readInertia(cJSON_GetObjectItemCaseSensitive(b, "inertia"), mass, path + ".inertia");
    Body::Rigid body(MassProperties(mass, com, Ic.shiftFromMassCenter(com, mass)));

    const cJSON* j = cJSON_GetObjectItemCaseSensitive(b, "joint");
    std::string jp = path + ".joint";
    checkKeys(j, jp, {"type", "parent", "parent_frame", "child_frame", "q", "u", "initial"});
    std::string type = str(cJSON_GetObjectItemCaseSensitive(j, "type"), jp + ".type");
    static const std::map<std::string, JointType> types = {
        {"weld", WELD}, {"pin", PIN}, {"slider", SLIDER}, {"ball", BALL}, {"free", FREE}};
    if (!types.count(type)) refuse("%s.type: joint type '%s' not supported", jp.c_str(), type.c_str());
    R.type = types.at(type);
    std::string parent = strOr(j, "parent", "ground", jp);
    R.parent = bodyByName(M, parent, jp + ".parent");
    R.X_PF = frame(cJSON_GetObjectItemCaseSensitive(j, "parent_frame"), jp + ".parent_frame");
    R.X_BM = frame(cJSON_GetObjectItemCaseSensitive(j, "child_frame"), jp + ".child_frame");
    static const int nq[] = {0, 1, 1, 4, 7}, nu[] = {0, 1, 1, 3, 6};
    if (has(j, "q")) R.q = nums(cJSON_GetObjectItemCaseSensitive(j, "q"), nq[R.type], jp + ".q");
    if (has(j, "u")) R.u = nums(cJSON_GetObjectItemCaseSensitive(j, "u"), nu[R.type], jp + ".u");
    if (const cJSON* in = cJSON_GetObjectItemCaseSensitive(j, "initial")) {
        if (R.type != FREE) refuse("%s.initial: only for free joints", jp.c_str());
        std::string ip = jp + ".initial";
        checkKeys(in, ip, {"position", "orientation", "velocity", "angular_velocity"});
        R.hasInitial = true;
        const cJSON* o = cJSON_GetObjectItemCaseSensitive(in, "orientation");
        R.X_GB = Transform(o ? rotation(o, ip + ".orientation") : Rotation(),
                           vec3Or(in, "position", Vec3(0), ip));
        R.v_G = vec3Or(in, "velocity", Vec3(0), ip);
        R.w_G = vec3Or(in, "angular_velocity", Vec3(0), ip);
    }
    switch (R.type) {
    case WELD: R.mb = MobilizedBody::Weld(R.parent, R.X_PF, body, R.X_BM); break;
    case PIN: R.mb = MobilizedBody::Pin(R.parent, R.X_PF, body, R.X_BM); break;
    case SLIDER: R.mb = MobilizedBody::Slider(R.parent, R.X_PF, body, R.X_BM); break;
    case BALL: R.mb = MobilizedBody::Ball(R.parent, R.X_PF, body, R.X_BM); break;
    case FREE: R.mb = MobilizedBody::Free(R.parent, R.X_PF, body, R.X_BM); break;
    }
    if (R.name == "ground" || M.index.count(R.name))
        refuse("%s.name: duplicate body name '%s'", path.c_str(), R.name.c_str());
    M.index[R.name] = (int)M.bodies.size();
    M.bodies.push_back(R);
}

HcMat readMat(const cJSON* o, const std::string& path) {
    HcMat m;
    if (!o) return m;
    checkKeys(o, path, {"plane_strain_modulus", "dissipation", "mu_static", "mu_dynamic", "mu_viscous"});
    m.E = numOr(o, "plane_strain_modulus", NAN, path);
    m.c = numOr(o, "dissipation", NAN, path);
    m.us = numOr(o, "mu_static", NAN, path);
    m.ud = numOr(o, "mu_dynamic", NAN, path);
    m.uv = numOr(o, "mu_viscous", NAN, path);
    return m;
}

// the parameters of a hunt_crossley block (force element or contact model); geometry elsewhere
void readHcParams(const cJSON* o, const std::string& path, HcSet& S) {
    const cJSON* bm = cJSON_GetObjectItemCaseSensitive(o, "body_material");
    const cJSON* pm = cJSON_GetObjectItemCaseSensitive(o, "plane_material");
    HcMat eff = readMat(nullptr, path);
    eff.E = numOr(o, "plane_strain_modulus", NAN, path);
    eff.c = numOr(o, "dissipation", NAN, path);
    eff.us = numOr(o, "mu_static", NAN, path);
    eff.ud = numOr(o, "mu_dynamic", NAN, path);
    eff.uv = numOr(o, "mu_viscous", NAN, path);
    S.vt = numOr(o, "transition_velocity", 0.01, path);
    if (bm || pm) {
        S.sphere = readMat(bm, path + ".body_material");
        S.plane = readMat(pm, path + ".plane_material");
    } else {
        S.sphere = S.plane = eff;
    }
    if (!(S.sphere.E > 0) || !(S.plane.E > 0))
        refuse("%s: the plane-strain modulus of both surfaces is needed", path.c_str());
}

const char* const kHcKeys[] = {"plane_strain_modulus", "dissipation", "mu_static", "mu_dynamic",
                               "mu_viscous", "transition_velocity", "body_material",
                               "plane_material"};

// the nine parameters of a smooth_sphere_half_space block (force element or contact model)
void readSsParams(const cJSON* o, const std::string& path, SsSpec& S) {
    for (int k = 0; k < 9; k++) S.p[k] = numOr(o, kSsKeys[k], S.p[k], path);
}

void readForce(Model& M, const cJSON* f, int i) {
    std::string path = "forces[" + std::to_string(i) + "]";
    std::string type = str(cJSON_GetObjectItemCaseSensitive(f, "type"), path + ".type");
    std::string name = strOr(f, "name", type + std::to_string(i), path);
    auto body = [&](const char* key) -> MobilizedBody& {
        return bodyByName(M, str(cJSON_GetObjectItemCaseSensitive(f, key), path + "." + key),
                          path + "." + key);
    };
    // a sphere on a plane, either contact kind as a force element: its keys (the kind's
    // parameters besides), name, bodies, plane frame and radius into S; returns the centre
    auto sphereOnPlane = [&](SphereOnPlane& S, const char* const* kindKeys, size_t nkeys) {
        std::set<std::string> keys = {"type", "name", "body", "plane", "center", "radius"};
        keys.insert(kindKeys, kindKeys + nkeys);
        checkKeys(f, path, keys);
        S.name = name;
        S.body = body("body");
        std::string pl = str(cJSON_GetObjectItemCaseSensitive(f, "plane"), path + ".plane");
        if (!M.planes.count(pl)) refuse("%s.plane: no plane '%s'", path.c_str(), pl.c_str());
        S.planeBody = bodyByName(M, M.planeBody[pl], path + ".plane");
        S.X_PBplane = M.planes[pl];
        Vec3 center = vec3Or(f, "center", Vec3(0), path);
        S.radius = numOr(f, "radius", NAN, path);
        return center;
    };
    auto coordinate = [&](MobilizedBody& mb, bool needPinSlider) {
        double c = numOr(f, "coordinate", 0, path);
        int ci = (int)c;
        if (mb.isGround()) refuse("%s.body: must not be ground", path.c_str());
        const BodyRec& R = M.bodies[M.index.at(
            str(cJSON_GetObjectItemCaseSensitive(f, "body"), path + ".body"))];
        static const int nu[] = {0, 1, 1, 3, 6};
        if (ci != c || ci < 0 || ci >= nu[R.type])
            refuse("%s.coordinate: %g does not exist", path.c_str(), c);
        if (needPinSlider && R.type != PIN && R.type != SLIDER)
            refuse("%s.body: needs a pin or slider", path.c_str());
        return ci;
    };
    if (type == "spring") {
        checkKeys(f, path, {"type", "name", "body1", "station1", "body2", "station2", "stiffness",
                            "rest_length", "damping"});
        MobilizedBody& b1 = body("body1");
        MobilizedBody& b2 = body("body2");
        Vec3 s1 = vec3Or(f, "station1", Vec3(0), path), s2 = vec3Or(f, "station2", Vec3(0), path);
        double k = numOr(f, "stiffness", NAN, path), L0 = numOr(f, "rest_length", 0, path);
        double c = numOr(f, "damping", 0, path);
        Force::TwoPointLinearSpring(M.forces, b1, s1, b2, s2, k, L0);
        if (c != 0) Force::TwoPointLinearDamper(M.forces, b1, s1, b2, s2, c);
    } else if (type == "mobility_spring") {
        checkKeys(f, path, {"type", "name", "body", "coordinate", "stiffness", "q0"});
        MobilizedBody& mb = body("body");
        int c = coordinate(mb, true);
        Force::MobilityLinearSpring(M.forces, mb, MobilizerQIndex(c), numOr(f, "stiffness", NAN, path),
                                    numOr(f, "q0", 0, path));
    } else if (type == "mobility_damper") {
        checkKeys(f, path, {"type", "name", "body", "coordinate", "damping"});
        MobilizedBody& mb = body("body");
        int c = coordinate(mb, false);
        Force::MobilityLinearDamper(M.forces, mb, MobilizerUIndex(c), numOr(f, "damping", NAN, path));
    } else if (type == "constant") {
        checkKeys(f, path, {"type", "name", "body", "station", "force", "torque"});
        MobilizedBody& mb = body("body");
        Vec3 F = vec3Or(f, "force", Vec3(0), path), T = vec3Or(f, "torque", Vec3(0), path);
        Force::ConstantForce(M.forces, mb, vec3Or(f, "station", Vec3(0), path), F);
        Force::ConstantTorque(M.forces, mb, T);
    } else if (type == "linear_stop") {
        checkKeys(f, path, {"type", "name", "body", "coordinate", "lower_bound", "upper_bound",
                            "stiffness", "dissipation"});
        MobilizedBody& mb = body("body");
        int c = coordinate(mb, true);
        Force::MobilityLinearStop(M.forces, mb, MobilizerQIndex(c), numOr(f, "stiffness", NAN, path),
                                  numOr(f, "dissipation", 0, path),
                                  numOr(f, "lower_bound", -Infinity, path),
                                  numOr(f, "upper_bound", Infinity, path));
    } else if (type == "linear_bushing") {
        checkKeys(f, path, {"type", "name", "body1", "frame1", "body2", "frame2",
                            "rotational_stiffness", "translational_stiffness", "rotational_damping",
                            "translational_damping"});
        MobilizedBody& b1 = body("body1");
        MobilizedBody& b2 = body("body2");
        Transform F1 = frame(cJSON_GetObjectItemCaseSensitive(f, "frame1"), path + ".frame1");
        Transform F2 = frame(cJSON_GetObjectItemCaseSensitive(f, "frame2"), path + ".frame2");
        Vec3 kr = vec3Or(f, "rotational_stiffness", Vec3(NAN), path);
        Vec3 kt = vec3Or(f, "translational_stiffness", Vec3(NAN), path);
        Vec3 cr = vec3Or(f, "rotational_damping", Vec3(0), path);
        Vec3 ct = vec3Or(f, "translational_damping", Vec3(0), path);
        Force::LinearBushing(M.forces, b1, F1, b2, F2, Vec6(kr[0], kr[1], kr[2], kt[0], kt[1], kt[2]),
                             Vec6(cr[0], cr[1], cr[2], ct[0], ct[1], ct[2]));
    } else if (type == "smooth_sphere_half_space") {
        SsSpec S;
        S.center = sphereOnPlane(S, kSsKeys, sizeof(kSsKeys) / sizeof(kSsKeys[0]));
        if (!(S.radius > 0)) refuse("%s.radius: must be > 0", path.c_str());
        readSsParams(f, path, S);
        M.ss.push_back(S);
    } else if (type == "hunt_crossley") {
        HcSet S;
        S.centers = {sphereOnPlane(S, kHcKeys, sizeof(kHcKeys) / sizeof(kHcKeys[0]))};
        readHcParams(f, path, S);
        M.hc.push_back(S);
    } else {
        refuse("%s.type: force kind '%s' not supported by simbody_scene", path.c_str(), type.c_str());
    }
}

// ----------------------------------------------------------------------------------------
// Hunt-Crossley: Simbody's HuntCrossleyForce, or the same law with friction from the clamped
// normal force (--hc-clamped-friction), as a Force::Custom over the contacts of one set

class ClampedHc : public Force::Custom::Implementation {
public:
    struct P { double k, c, s1, us, ud, uv, vt; };
    ClampedHc(const GeneralContactSubsystem& cs, ContactSetIndex set, P p)
        : cs_(cs), set_(set), p_(p) {}
    void calcForce(const State& state, Vector_<SpatialVec>& bodyForces, Vector_<Vec3>&,
                   Vector&) const override {
        const Array_<Contact>& contacts = cs_.getContacts(state, set_);
        for (const Contact& ct : contacts) {
            if (!PointContact::isInstance(ct)) continue;
            const PointContact& contact = static_cast<const PointContact&>(ct);
            const MobilizedBody& body1 = cs_.getBody(set_, contact.getSurface1());
            const MobilizedBody& body2 = cs_.getBody(set_, contact.getSurface2());
            // surface order as added: half-space first; the fraction s1 belongs to surface 1
            double s1 = contact.getSurface1() == 0 ? p_.s1 : 1 - p_.s1;
            double depth = contact.getDepth();
            const Vec3& normal = contact.getNormal();
            Vec3 location = contact.getLocation() + (depth * (0.5 - s1)) * normal;
            double R = contact.getEffectiveRadiusOfCurvature();
            double fH = (4.0 / 3.0) * p_.k * depth * std::sqrt(R * p_.k * depth);
            Vec3 st1 = body1.findStationAtGroundPoint(state, location);
            Vec3 st2 = body2.findStationAtGroundPoint(state, location);
            Vec3 v = body1.findStationVelocityInGround(state, st1) -
                     body2.findStationVelocityInGround(state, st2);
            double vn = dot(v, normal);
            Vec3 vt = v - vn * normal;
            double f = fH * (1 + 1.5 * p_.c * vn);
            if (f < 0) f = 0;
            Vec3 force = f * normal;
            double slip = vt.norm();
            if (slip != 0) {
                double vr = slip / p_.vt;
                double ff = f * (std::min(vr, 1.0) * (p_.ud + 2 * (p_.us - p_.ud) / (1 + vr * vr)) +
                                 p_.uv * slip);
                force += ff * vt / slip;
            }
            body1.applyForceToBodyPoint(state, st1, -force, bodyForces);
            body2.applyForceToBodyPoint(state, st2, force, bodyForces);
        }
    }
    Real calcPotentialEnergy(const State& state) const override {
        double pe = 0;
        for (const Contact& ct : cs_.getContacts(state, set_)) {
            if (!PointContact::isInstance(ct)) continue;
            const PointContact& contact = static_cast<const PointContact&>(ct);
            double x = contact.getDepth(), R = contact.getEffectiveRadiusOfCurvature();
            pe += 0.4 * (4.0 / 3.0) * p_.k * x * std::sqrt(R * p_.k * x) * x;
        }
        return pe;
    }
    // contacts are computed at the Dynamics stage's dependence on positions
    bool dependsOnlyOnPositions() const override { return false; }

private:
    const GeneralContactSubsystem& cs_;
    ContactSetIndex set_;
    P p_;
};

double z0(double v) { return std::isnan(v) ? 0 : v; }
double hmean(double a, double b) { return (a == 0 && b == 0) ? 0 : 2 * a * b / (a + b); }

void buildHc(Model& M) {
    if (M.hc.empty()) return;
    M.contacts.reset(new GeneralContactSubsystem(M.system));
    for (const HcSet& S : M.hc) {
        if (S.body.getMobilizedBodyIndex() == S.planeBody.getMobilizedBodyIndex())
            refuse("contact '%s': sphere and plane on one body", S.name.c_str());
        ContactSetIndex set = M.contacts->createContactSet();
        // Simbody's half-space fills x > 0 of its frame (outward normal -x); contactsim's plane
        // has its outward normal along +z of its frame: turn -x onto +z
        M.contacts->addBody(set, S.planeBody, ContactGeometry::HalfSpace(),
                            S.X_PBplane * Transform(Rotation(Pi / 2, YAxis), Vec3(0)));
        for (const Vec3& c : S.centers)
            M.contacts->addBody(set, S.body, ContactGeometry::Sphere(S.radius), Transform(c));
        if (!M.hcClamped) {
            HuntCrossleyForce hc(M.forces, *M.contacts, set);
            hc.setBodyParameters(ContactSurfaceIndex(0), S.plane.E, z0(S.plane.c), z0(S.plane.us),
                                 z0(S.plane.ud), z0(S.plane.uv));
            for (int i = 0; i < (int)S.centers.size(); i++)
                hc.setBodyParameters(ContactSurfaceIndex(i + 1), S.sphere.E, z0(S.sphere.c),
                                     z0(S.sphere.us), z0(S.sphere.ud), z0(S.sphere.uv));
            hc.setTransitionVelocity(S.vt);
        } else {
            double k1 = std::pow(S.plane.E, 2.0 / 3.0), k2 = std::pow(S.sphere.E, 2.0 / 3.0);
            ClampedHc::P p;
            p.s1 = k2 / (k1 + k2);
            p.k = k1 * p.s1;
            p.c = z0(S.plane.c) * p.s1 + z0(S.sphere.c) * (1 - p.s1);
            p.us = hmean(z0(S.plane.us), z0(S.sphere.us));
            p.ud = hmean(z0(S.plane.ud), z0(S.sphere.ud));
            p.uv = hmean(z0(S.plane.uv), z0(S.sphere.uv));
            p.vt = S.vt;
            Force::Custom(M.forces, new ClampedHc(*M.contacts, set, p));
        }
    }
}

void buildSs(Model& M) {
    for (const SsSpec& S : M.ss) {
        if (S.body.getMobilizedBodyIndex() == S.planeBody.getMobilizedBodyIndex())
            refuse("'%s': sphere and plane on one body", S.name.c_str());
        SmoothSphereHalfSpaceForce f(M.forces);
        f.setParameters(S.p[0], S.p[1], S.p[2], S.p[3], S.p[4], S.p[5], S.p[6], S.p[7], S.p[8]);
        f.setContactSphereBody(S.body);
        f.setContactSphereLocationInBody(S.center);
        f.setContactSphereRadius(S.radius);
        f.setContactHalfSpaceBody(S.planeBody);
        // x > 0 of the half-space frame is inside: turn +x onto contactsim's inward -z
        f.setContactHalfSpaceFrame(S.X_PBplane * Transform(Rotation(Pi / 2, YAxis), Vec3(0)));
    }
}

// ----------------------------------------------------------------------------------------

void readScene(Model& M, const cJSON* root, const std::string& contactModel) {
    checkKeys(root, "scene", {"name", "description", "gravity", "bodies", "planes", "forces",
                              "contacts", "contact_models", "changes", "simulation"});
    const cJSON* changes = cJSON_GetObjectItemCaseSensitive(root, "changes");
    if (changes && cJSON_GetArraySize(changes) > 0) refuse("changes: scheduled changes not supported");
    Vec3 g = vec3Or(root, "gravity", Vec3(0, 0, -9.81), "scene");

    int i = 0;
    for (const cJSON* b = cJSON_GetObjectItemCaseSensitive(root, "bodies") ? cJSON_GetObjectItemCaseSensitive(root, "bodies")->child : nullptr; b; b = b->next)
        readBody(M, b, i++);
    i = 0;
    if (const cJSON* pl = cJSON_GetObjectItemCaseSensitive(root, "planes"))
        for (const cJSON* p = pl->child; p; p = p->next, i++) {
            std::string path = "planes[" + std::to_string(i) + "]";
            checkKeys(p, path, {"name", "body", "frame"});
            std::string name = str(cJSON_GetObjectItemCaseSensitive(p, "name"), path + ".name");
            std::string bn = strOr(p, "body", "ground", path);
            bodyByName(M, bn, path + ".body");
            M.planes[name] = frame(cJSON_GetObjectItemCaseSensitive(p, "frame"), path + ".frame");
            M.planeBody[name] = bn;
        }
    if (g.norm() != 0) Force::UniformGravity(M.forces, M.matter, g);
    i = 0;
    if (const cJSON* fs = cJSON_GetObjectItemCaseSensitive(root, "forces"))
        for (const cJSON* f = fs->child; f; f = f->next) readForce(M, f, i++);

    // contacts under the chosen contact model
    const cJSON* contacts = cJSON_GetObjectItemCaseSensitive(root, "contacts");
    const cJSON* models = cJSON_GetObjectItemCaseSensitive(root, "contact_models");
    if (contacts && cJSON_GetArraySize(contacts) > 0) {
        std::string model = contactModel;
        if (model.empty() && models) model = strOr(models, "default", "", "contact_models");
        if (model.empty() && models) {
            int n = 0;
            for (const cJSON* c = models->child; c; c = c->next)
                if (std::strcmp(c->string, "default")) model = c->string, n++;
            if (n != 1) model.clear();
        }
        if (model != "hunt_crossley" && model != "smooth_sphere_half_space")
            refuse("contacts: contact model '%s' not supported (only hunt_crossley and "
                   "smooth_sphere_half_space)", model.c_str());
        const cJSON* block = models ? cJSON_GetObjectItemCaseSensitive(models, model.c_str()) : nullptr;
        if (!block) refuse("contact_models: no %s block", model.c_str());
        bool smooth = model == "smooth_sphere_half_space";
        std::set<std::string> keys = smooth ? std::set<std::string>(std::begin(kSsKeys), std::end(kSsKeys))
                                            : std::set<std::string>(std::begin(kHcKeys), std::end(kHcKeys));
        checkKeys(block, "contact_models." + model, keys);
        i = 0;
        for (const cJSON* c = contacts->child; c; c = c->next, i++) {
            std::string path = "contacts[" + std::to_string(i) + "]";
            checkKeys(c, path, {"name", "body", "plane", "points", "radius"});
            HcSet S;
            S.name = strOr(c, "name", "contact" + std::to_string(i), path);
            S.body = bodyByName(M, str(cJSON_GetObjectItemCaseSensitive(c, "body"), path + ".body"), path + ".body");
            std::string pl = str(cJSON_GetObjectItemCaseSensitive(c, "plane"), path + ".plane");
            if (!M.planes.count(pl)) refuse("%s.plane: no plane '%s'", path.c_str(), pl.c_str());
            S.planeBody = bodyByName(M, M.planeBody[pl], path + ".plane");
            S.X_PBplane = M.planes[pl];
            const cJSON* pts = cJSON_GetObjectItemCaseSensitive(c, "points");
            if (!cJSON_IsArray(pts)) refuse("%s.points: expected an array", path.c_str());
            for (const cJSON* p = pts->child; p; p = p->next) S.centers.push_back(vec3(p, path + ".points"));
            S.radius = numOr(c, "radius", 0, path);
            if (!(S.radius > 0)) refuse("%s.radius: must be > 0 for %s", path.c_str(), model.c_str());
            if (smooth) {
                for (int k = 0; k < (int)S.centers.size(); k++) {
                    SsSpec P;
                    P.name = S.name + "." + std::to_string(k);
                    P.body = S.body;
                    P.planeBody = S.planeBody;
                    P.X_PBplane = S.X_PBplane;
                    P.center = S.centers[k];
                    P.radius = S.radius;
                    readSsParams(block, "contact_models." + model, P);
                    M.ss.push_back(P);
                }
                continue;
            }
            readHcParams(block, "contact_models.hunt_crossley", S);
            M.hc.push_back(S);
        }
    }
    buildHc(M);
    buildSs(M);

    if (const cJSON* sim = cJSON_GetObjectItemCaseSensitive(root, "simulation")) {
        M.duration = numOr(sim, "duration", 1.0, "simulation");
        M.report = numOr(sim, "report_interval", 0.01, "simulation");
    }
}

// initial state: q and u as given, then the "initial" of free bodies from their parents' state
void initialState(Model& M) {
    M.state = M.system.realizeTopology();
    State& s = M.state;
    for (BodyRec& R : M.bodies) {
        if (!R.q.empty()) {
            std::vector<double> q = R.q;
            if (R.type == BALL || R.type == FREE) {
                double n = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
                for (int k = 0; k < 4; k++) q[k] /= n;
            }
            for (int k = 0; k < (int)q.size(); k++) R.mb.setOneQ(s, k, q[k]);
        }
        for (int k = 0; k < (int)R.u.size(); k++) R.mb.setOneU(s, k, R.u[k]);
    }
    for (BodyRec& R : M.bodies) {
        if (!R.hasInitial) continue;
        M.system.realize(s, Stage::Velocity);
        const MobilizedBody& P = R.parent;
        Transform X_GP = P.getBodyTransform(s);
        Vec3 w_P = P.getBodyAngularVelocity(s), v_P = P.getBodyOriginVelocity(s);
        Transform X_GF = X_GP * R.X_PF;
        Transform X_GM = R.X_GB * R.X_BM;
        Transform X_FM = ~X_GF * X_GM;
        R.mb.setQToFitTransform(s, X_FM);
        Vec3 vF = v_P + w_P % (X_GF.p() - X_GP.p());
        Vec3 vM = R.v_G + R.w_G % (X_GM.p() - R.X_GB.p());
        Vec3 r = X_GM.p() - X_GF.p();
        Vec3 vrel = vM - vF - w_P % r;
        R.mb.setUToFitVelocity(s, SpatialVec(~X_GF.R() * (R.w_G - w_P), ~X_GF.R() * vrel));
    }
    M.system.realize(s, Stage::Velocity);
}

}  // namespace

int main(int argc, char** argv) {
    const char* usage =
        "usage: simbody_scene SCENE.json [-o OUT.csv] [--duration T] [--report-interval DT]\n"
        "       [--integrator rkmerson|rkf|rk3|cpodes|verlet] [--accuracy A]\n"
        "       [--contact-model NAME] [--hc-clamped-friction]\n";
    if (argc < 2) {
        std::fputs(usage, stderr);
        return 2;
    }
    std::string scene = argv[1], integName = "rkmerson", contactModel, out;
    double accuracy = 1e-10, duration = -1, report = -1;
    bool clamped = false;
    for (int i = 2; i < argc; i++) {
        bool more = i + 1 < argc;
        if (!std::strcmp(argv[i], "-o") && more) out = argv[++i];
        else if (!std::strcmp(argv[i], "--duration") && more) duration = std::atof(argv[++i]);
        else if (!std::strcmp(argv[i], "--report-interval") && more) report = std::atof(argv[++i]);
        else if (!std::strcmp(argv[i], "--integrator") && more) integName = argv[++i];
        else if (!std::strcmp(argv[i], "--accuracy") && more) accuracy = std::atof(argv[++i]);
        else if (!std::strcmp(argv[i], "--contact-model") && more) contactModel = argv[++i];
        else if (!std::strcmp(argv[i], "--hc-clamped-friction")) clamped = true;
        else {
            std::fprintf(stderr, "simbody_scene: unknown or incomplete option '%s'\n%s", argv[i], usage);
            return 2;
        }
    }
    FILE* fin = std::fopen(scene.c_str(), "rb");
    if (!fin) {
        std::fprintf(stderr, "simbody_scene: cannot read '%s'\n", scene.c_str());
        return 2;
    }
    std::string text;
    char buf[65536];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, fin)) > 0) text.append(buf, n);
    std::fclose(fin);
    cJSON* root = cJSON_Parse(text.c_str());
    if (!root) {
        std::fprintf(stderr, "simbody_scene: %s: malformed JSON\n", scene.c_str());
        return 2;
    }
    Model M;
    M.hcClamped = clamped;
    try {
        readScene(M, root, contactModel);
        initialState(M);
    } catch (const Refuse& e) {
        std::fprintf(stderr, "simbody_scene: %s: outside the supported subset: %s\n", scene.c_str(),
                     e.what());
        cJSON_Delete(root);
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "simbody_scene: %s: Simbody refused the model: %s\n", scene.c_str(),
                     e.what());
        cJSON_Delete(root);
        return 2;
    }
    cJSON_Delete(root);
    if (duration > 0) M.duration = duration;
    if (report > 0) M.report = report;

    std::unique_ptr<Integrator> integ;
    if (integName == "rkmerson") integ.reset(new RungeKuttaMersonIntegrator(M.system));
    else if (integName == "rkf") integ.reset(new RungeKuttaFeldbergIntegrator(M.system));
    else if (integName == "rk3") integ.reset(new RungeKutta3Integrator(M.system));
    else if (integName == "verlet") integ.reset(new VerletIntegrator(M.system));
    else if (integName == "cpodes") integ.reset(new CPodesIntegrator(M.system, CPodes::BDF, CPodes::Newton));
    else {
        std::fprintf(stderr, "simbody_scene: unknown integrator '%s'\n", integName.c_str());
        return 2;
    }
    integ->setAccuracy(accuracy);
    integ->setConstraintTolerance(std::min(1e-10, accuracy));

    FILE* f = out.empty() ? stdout : std::fopen(out.c_str(), "w");
    if (!f) {
        std::fprintf(stderr, "simbody_scene: cannot write '%s'\n", out.c_str());
        return 1;
    }
    std::fprintf(f, "t");
    for (const BodyRec& R : M.bodies) {
        const char* nm = R.name.c_str();
        std::fprintf(f, ",%s.px,%s.py,%s.pz,%s.qw,%s.qx,%s.qy,%s.qz,%s.vx,%s.vy,%s.vz,%s.wx,%s.wy,%s.wz",
                     nm, nm, nm, nm, nm, nm, nm, nm, nm, nm, nm, nm, nm);
    }
    for (const BodyRec& R : M.bodies)
        if (R.type == PIN || R.type == SLIDER) std::fprintf(f, ",%s.q0,%s.u0", R.name.c_str(), R.name.c_str());
    std::fprintf(f, ",ke,pe\n");
    auto record = [&](const State& s) {
        M.system.realize(s, Stage::Dynamics);
        std::fprintf(f, "%.17g", s.getTime());
        for (const BodyRec& R : M.bodies) {
            const Transform& X = R.mb.getBodyTransform(s);
            Vec4 q = X.R().convertRotationToQuaternion().asVec4();
            if (q[0] < 0) q = -q;
            Vec3 v = R.mb.getBodyOriginVelocity(s), w = R.mb.getBodyAngularVelocity(s);
            std::fprintf(f, ",%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g",
                         X.p()[0], X.p()[1], X.p()[2], q[0], q[1], q[2], q[3], v[0], v[1], v[2],
                         w[0], w[1], w[2]);
        }
        for (const BodyRec& R : M.bodies)
            if (R.type == PIN || R.type == SLIDER)
                std::fprintf(f, ",%.17g,%.17g", R.mb.getOneQ(s, 0), R.mb.getOneU(s, 0));
        std::fprintf(f, ",%.17g,%.17g\n", M.system.calcKineticEnergy(s),
                     M.system.calcPotentialEnergy(s));
    };
    int rc = 0;
    try {
        integ->initialize(M.state);
        record(integ->getState());
        int nrep = (int)std::floor(M.duration / M.report + 1e-9);
        for (int k = 1; k <= nrep; k++) {
            double t = k * M.report;
            while (integ->getTime() < t) {
                Integrator::SuccessfulStepStatus st = integ->stepTo(t);
                if (st == Integrator::EndOfSimulation || integ->isSimulationOver()) {
                    std::fprintf(stderr, "simbody_scene: integration ended at t = %g: %s\n",
                                 integ->getTime(),
                                 Integrator::getTerminationReasonString(integ->getTerminationReason()).c_str());
                    rc = 1;
                    break;
                }
            }
            if (rc) break;
            record(integ->getState());
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "simbody_scene: integration failed at t = %g: %s\n", integ->getTime(), e.what());
        rc = 1;
    }
    std::fprintf(stderr, "simbody_scene: %s: integrator=%s accuracy=%g steps=%d realizations=%d\n",
                 scene.c_str(), integName.c_str(), accuracy, integ->getNumStepsTaken(),
                 integ->getNumRealizations());
    if (f != stdout) std::fclose(f);
    return rc;
}
