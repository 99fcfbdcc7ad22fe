// simbody_peer.cpp: contactsim's benchmark scenes (scenes/bench/) built in Simbody 3.7, for
// timing Simbody's integrators on the same models.
//
//   simbody_peer SCENE [--integrator rkmerson|cpodes] [--accuracy A] [--traj FILE.csv]
//                      [--report-interval DT]
//
// SCENE is a scene name: block_spin_slide, block_spin_slide_vt001, incline_stick,
// incline_slide, sphere_bounce_roll, pendulum_stop, bushing_hang, chain_N (N >= 1).
// Every parameter below is the one in scenes/bench/SCENE.json (tools/make_bench_scenes.py);
// where Simbody has the model natively it is used (Force::MobilityLinearStop,
// Force::LinearBushing, HuntCrossleyForce), otherwise the contact law is written as a
// Force::Custom with contactsim's equations (compliant_point, which has no Simbody original).
//
// Prints one line of key=value pairs: the scene, integrator, accuracy, steps, realizations,
// cpu_integration (process CPU seconds spent in the integration loop alone, stepping to every
// report time, every --report-interval DT (default the scene's 0.01 s), but writing no output;
// bench/run.py times the integration with DT the whole run), and the final state q and u. With
// --traj, writes after the run one row per report time: t, then the centre of mass of every
// body in Ground. No limit on the internal steps between two reports (CPodes' own is 500).
#include <algorithm>
#include <Simbody.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

using namespace SimTK;

namespace {

double cpuSeconds() {
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

const double kG = 9.81;

// quintic step 10 s^3 - 15 s^4 + 6 s^5 on [0, 1]
double step5(double s) {
    if (s <= 0) return 0;
    if (s >= 1) return 1;
    return s * s * s * (10 + s * (-15 + 6 * s));
}

// contactsim's compliant_point (src/forces/compliant_point.c) against the plane z = 0 of
// Ground: per station a linear penalty force with Hunt-Crossley-style damping and the quintic
// Stribeck friction curve, applied at the deformed interface s x above the station
class CompliantPoints : public Force::Custom::Implementation {
public:
    struct Material {
        double k, c, us, ud, uv, s, vt;
    };
    CompliantPoints(const MobilizedBody& body, std::vector<Vec3> stations, Material mat)
        : body_(body), stations_(std::move(stations)), mat_(mat) {}

    void calcForce(const State& state, Vector_<SpatialVec>& bodyForces, Vector_<Vec3>&,
                   Vector&) const override {
        const Transform& X_GB = body_.getBodyTransform(state);
        for (const Vec3& st : stations_) {
            Vec3 p = X_GB * st;
            double x = -p[2];
            if (!(x > 0)) continue;
            // the contact point and the velocity of the body's material point there
            Vec3 point_G = p + Vec3(0, 0, mat_.s * x);
            Vec3 point_B = ~X_GB.R() * (point_G - X_GB.p());
            Vec3 v = body_.findStationVelocityInGround(state, point_B);
            double xdot = -v[2];
            Vec3 vtan(v[0], v[1], 0);
            double slip = vtan.norm();
            double fn = mat_.k * x * (1 + mat_.c * xdot);
            if (fn < 0) fn = 0;
            Vec3 f(0, 0, fn);
            if (slip > 0) {
                double r = slip / mat_.vt, mu;
                if (r < 1) mu = mat_.us * step5(r);
                else if (r < 3) mu = mat_.us - (mat_.us - mat_.ud) * step5(0.5 * (r - 1));
                else mu = mat_.ud;
                mu += mat_.uv * slip;
                f -= (fn * mu / slip) * vtan;
            }
            body_.applyForceToBodyPoint(state, point_B, f, bodyForces);
        }
    }
    Real calcPotentialEnergy(const State& state) const override {
        const Transform& X_GB = body_.getBodyTransform(state);
        double pe = 0;
        for (const Vec3& st : stations_) {
            double x = -(X_GB * st)[2];
            if (x > 0) pe += 0.5 * mat_.k * x * x;
        }
        return pe;
    }

private:
    MobilizedBody body_;
    std::vector<Vec3> stations_;
    Material mat_;
};

// Simbody combines two contact materials as contactsim's compliant_point does
CompliantPoints::Material combine(double k1, double c1, double k2, double c2, double us,
                                  double ud, double vt) {
    CompliantPoints::Material m;
    m.s = k2 / (k1 + k2);
    m.k = k1 * m.s;
    m.c = c1 * m.s + c2 * (1 - m.s);
    m.us = us;   // equal coefficients on both surfaces: 2ab/(a+b) = a
    m.ud = ud;
    m.uv = 0;
    m.vt = vt;
    return m;
}

std::vector<Vec3> boxCorners(double h, bool bottomOnly) {
    std::vector<Vec3> pts;
    for (double z : {-h, h}) {
        if (bottomOnly && z > 0) continue;
        for (double y : {-h, h})
            for (double x : {-h, h}) pts.push_back(Vec3(x, y, z));
    }
    return pts;
}

Rotation axisAngle(Vec3 axis, double deg) {
    return Rotation(deg * Pi / 180, UnitVec3(axis));
}

// solid box of half sizes h about its centre
Inertia boxInertia(double m, Vec3 h) {
    return Inertia(m / 3 * (h[1] * h[1] + h[2] * h[2]), m / 3 * (h[0] * h[0] + h[2] * h[2]),
                   m / 3 * (h[0] * h[0] + h[1] * h[1]));
}

// the model: system, bodies whose mass centres are reported, and the initial state
struct Model {
    MultibodySystem system;
    SimbodyMatterSubsystem matter{system};
    GeneralForceSubsystem forces{system};
    std::unique_ptr<GeneralContactSubsystem> contacts;
    std::vector<MobilizedBody> bodies;
    State state;
    double duration = 0;
};

// a free body with the given mass properties about its origin (= its centre of mass)
MobilizedBody::Free freeBody(Model& M, double mass, const Inertia& central) {
    Body::Rigid body(MassProperties(mass, Vec3(0), central));
    MobilizedBody::Free mb(M.matter.Ground(), Transform(), body, Transform());
    M.bodies.push_back(mb);
    return mb;
}

void blockSpinSlide(Model& M, double vt) {
    Force::UniformGravity(M.forces, M.matter, Vec3(0, 0, -kG));
    MobilizedBody::Free block = freeBody(M, 10.0, Inertia(1, 1, 1));
    // material pair block (5e5 N/m, 0.55 s/m), floor (5e4 N/m, 0.495 s/m), mu 0.7 / 0.5
    Force::Custom(M.forces, new CompliantPoints(block, boxCorners(0.1, false),
                                                combine(5e5, 0.55, 5e4, 0.495, 0.7, 0.5, vt)));
    M.state = M.system.realizeTopology();
    block.setQToFitTransform(M.state, Transform(Vec3(0, 0, 0.103261976704)));
    block.setUToFitVelocity(M.state, SpatialVec(Vec3(0, 0, 12), Vec3(3, 0, 0)));
    M.duration = 12.0;
}

// Simbody's Hunt-Crossley sphere against a half-space, as contactsim's hunt_crossley: with
// the same material on both surfaces the pair's modulus is E' / 2^1.5, so E' = E 2^1.5
struct HcParams {
    double E, c, us, ud, vt;
};

HuntCrossleyForce* huntCrossley(Model& M, const Rotation& R_planeG, MobilizedBody& body,
                                const std::vector<Vec3>& centers, double radius,
                                const HcParams& p) {
    M.contacts.reset(new GeneralContactSubsystem(M.system));
    ContactSetIndex set = M.contacts->createContactSet();
    // Simbody's half-space fills x > 0 of its frame (outward normal -x); contactsim's plane
    // has outward normal +z of its frame: turn -x onto +z, then by the plane's rotation
    M.contacts->addBody(set, M.matter.Ground(), ContactGeometry::HalfSpace(),
                        Transform(R_planeG * Rotation(Pi / 2, YAxis), Vec3(0)));
    for (const Vec3& c : centers)
        M.contacts->addBody(set, body, ContactGeometry::Sphere(radius), Transform(c));
    HuntCrossleyForce* hc = new HuntCrossleyForce(M.forces, *M.contacts, set);
    double Ep = p.E * std::pow(2.0, 1.5);
    for (int i = 0; i < (int)centers.size() + 1; i++)
        hc->setBodyParameters(ContactSurfaceIndex(i), Ep, p.c, p.us, p.ud, 0);
    hc->setTransitionVelocity(p.vt);
    return hc;
}

void incline(Model& M, double deg, const Vec3& pos, double duration) {
    Force::UniformGravity(M.forces, M.matter, Vec3(0, 0, -kG));
    MobilizedBody::Free block = freeBody(M, 10.0, boxInertia(10.0, Vec3(0.1)));
    Rotation R = axisAngle(Vec3(0, 1, 0), deg);
    // the hunt_crossley model of the scene: corner spheres of radius 2 mm, E 1e8, c 1 s/m
    delete huntCrossley(M, R, block, boxCorners(0.1, true), 0.002,
                        HcParams{1e8, 1.0, 0.7, 0.5, 0.01});
    M.state = M.system.realizeTopology();
    block.setQToFitTransform(M.state, Transform(R, pos));
    M.duration = duration;
}

void sphereBounceRoll(Model& M) {
    Force::UniformGravity(M.forces, M.matter, Vec3(0, 0, -kG));
    double r = 0.1;
    MobilizedBody::Free ball = freeBody(M, 1.0, Inertia(0.4 * r * r));
    delete huntCrossley(M, Rotation(), ball, {Vec3(0)}, r, HcParams{1e7, 0.2, 0.8, 0.6, 0.01});
    M.state = M.system.realizeTopology();
    ball.setQToFitTransform(M.state, Transform(Vec3(0, 0, 0.5)));
    ball.setUToFitVelocity(M.state, SpatialVec(Vec3(0, -20, 0), Vec3(1, 0, 0)));
    M.duration = 3.0;
}

// a pin body: mass centre com (body frame = mobilizer frame M), central inertia
MobilizedBody::Pin pinBody(Model& M, MobilizedBody& parent, const Transform& X_PF,
                           double mass, const Vec3& com, const Inertia& central) {
    Body::Rigid body(MassProperties(mass, com, central.shiftFromMassCenter(com, mass)));
    MobilizedBody::Pin mb(parent, X_PF, body, Transform());
    M.bodies.push_back(mb);
    return mb;
}

void pendulumStop(Model& M) {
    Force::UniformGravity(M.forces, M.matter, Vec3(0, 0, -kG));
    MobilizedBody::Pin arm =
        pinBody(M, M.matter.Ground(), Transform(axisAngle(Vec3(1, 0, 0), 90), Vec3(0, 0, 2)),
                1.0, Vec3(0, -1, 0), Inertia(0.4 * 0.05 * 0.05));
    Force::MobilityLinearStop(M.forces, arm, MobilizerQIndex(0), 300, 0.1, -0.5, 0.8);
    M.state = M.system.realizeTopology();
    arm.setOneQ(M.state, 0, 1.2);
    M.duration = 5.0;
}

void bushingHang(Model& M) {
    Force::UniformGravity(M.forces, M.matter, Vec3(0, 0, -kG));
    MobilizedBody::Free block = freeBody(M, 2.0, boxInertia(2.0, Vec3(0.1)));
    Force::LinearBushing(M.forces, M.matter.Ground(), Transform(Vec3(0, 0, 1.0)), block,
                         Transform(Vec3(0, 0, 0.1)), Vec6(50, 50, 30, 2000, 2000, 4000),
                         Vec6(1.0, 1.0, 0.6, 20, 20, 30));
    M.state = M.system.realizeTopology();
    block.setQToFitTransform(M.state, Transform(axisAngle(Vec3(1, 1, 0), 15),
                                                Vec3(0.02, -0.01, 0.87)));
    block.setUToFitVelocity(M.state, SpatialVec(Vec3(0, 0, 1.0), Vec3(0)));
    M.duration = 5.0;
}

void chain(Model& M, int n) {
    Force::UniformGravity(M.forces, M.matter, Vec3(0, 0, -kG));
    MobilizedBody parent = M.matter.Ground();
    for (int i = 0; i < n; i++) {
        Transform X_PF = i == 0 ? Transform(axisAngle(Vec3(1, 0, 0), 90), Vec3(0, 0, 1.0))
                                : Transform(Vec3(0.1, 0, 0));
        MobilizedBody::Pin link =
            pinBody(M, parent, X_PF, 0.1, Vec3(0.05, 0, 0), Inertia(1e-5, 1e-4, 1e-4));
        Force::MobilityLinearStop(M.forces, link, MobilizerQIndex(0), 50, 0.2, -0.5, 0.5);
        parent = link;
    }
    M.state = M.system.realizeTopology();
    M.duration = 2.0;
}

bool build(Model& M, const std::string& scene) {
    if (scene == "block_spin_slide") blockSpinSlide(M, 0.01);
    else if (scene == "block_spin_slide_vt001") blockSpinSlide(M, 0.001);
    else if (scene == "incline_stick")
        incline(M, 20, Vec3(0.0353361756317, 0, 0.0970853446381), 3.0);
    else if (scene == "incline_slide")
        incline(M, 40, Vec3(0.0665244866543, 0, 0.0792807959657), 2.0);
    else if (scene == "sphere_bounce_roll") sphereBounceRoll(M);
    else if (scene == "pendulum_stop") pendulumStop(M);
    else if (scene == "bushing_hang") bushingHang(M);
    else if (scene.rfind("chain_", 0) == 0 && std::atoi(scene.c_str() + 6) > 0)
        chain(M, std::atoi(scene.c_str() + 6));
    else return false;
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: simbody_peer SCENE [--integrator rkmerson|cpodes] "
                             "[--accuracy A] [--traj FILE.csv] [--report-interval DT]\n");
        return 2;
    }
    std::string scene = argv[1], integ_name = "rkmerson";
    const char* traj = nullptr;
    double accuracy = 1e-5, dt = 0.01;
    for (int i = 2; i < argc; i++) {
        bool more = i + 1 < argc;
        if (!std::strcmp(argv[i], "--integrator") && more) integ_name = argv[++i];
        else if (!std::strcmp(argv[i], "--accuracy") && more) accuracy = std::atof(argv[++i]);
        else if (!std::strcmp(argv[i], "--traj") && more) traj = argv[++i];
        else if (!std::strcmp(argv[i], "--report-interval") && more) dt = std::atof(argv[++i]);
        else {
            std::fprintf(stderr, "simbody_peer: unknown or incomplete option '%s'\n", argv[i]);
            return 2;
        }
    }
    Model M;
    if (!build(M, scene)) {
        std::fprintf(stderr, "simbody_peer: unknown scene '%s'\n", scene.c_str());
        return 2;
    }
    std::unique_ptr<Integrator> integ;
    if (integ_name == "rkmerson") integ.reset(new RungeKuttaMersonIntegrator(M.system));
    else if (integ_name == "cpodes")
        integ.reset(new CPodesIntegrator(M.system, CPodes::BDF, CPodes::Newton));
    else {
        std::fprintf(stderr, "simbody_peer: unknown integrator '%s'\n", integ_name.c_str());
        return 2;
    }
    integ->setAccuracy(accuracy);
    integ->setInternalStepLimit(100000000);  // (0, "unlimited", leaves CPodes its own 500)

    // integrate to every report time, keeping the mass centres in memory (at least to the end:
    // an interval beyond the duration is one report there)
    int nrep = std::max(1, (int)std::floor(M.duration / dt + 0.5));
    int nb = (int)M.bodies.size();
    std::vector<double> rows;
    rows.reserve((size_t)(nrep + 1) * (1 + 3 * nb));
    auto record = [&](const State& s) {
        M.system.realize(s, Stage::Position);
        rows.push_back(s.getTime());
        for (const MobilizedBody& b : M.bodies) {
            Vec3 c = b.findMassCenterLocationInGround(s);
            rows.push_back(c[0]), rows.push_back(c[1]), rows.push_back(c[2]);
        }
    };
    double t0 = cpuSeconds();
    integ->initialize(M.state);
    record(integ->getState());
    for (int k = 1; k <= nrep; k++) {
        double t = k == nrep ? M.duration : k * dt;
        // stepTo returns early at the start of the interval and at events: repeat
        while (integ->getTime() < t) {
            Integrator::SuccessfulStepStatus st = integ->stepTo(t);
            if (st == Integrator::EndOfSimulation || integ->isSimulationOver()) {
                std::fprintf(stderr, "simbody_peer: integration ended at t = %g: %s\n",
                             integ->getTime(),
                             Integrator::getTerminationReasonString(
                                 integ->getTerminationReason()).c_str());
                return 1;
            }
        }
        record(integ->getState());
    }
    double cpu = cpuSeconds() - t0;

    const State& s = integ->getState();
    std::printf("scene=%s integrator=%s accuracy=%g t=%.17g steps=%d realizations=%d "
                "error_test_failures=%d cpu_integration=%.6f",
                scene.c_str(), integ_name.c_str(), accuracy, s.getTime(),
                integ->getNumStepsTaken(), integ->getNumRealizations(),
                integ->getNumErrorTestFailures(), cpu);
    std::printf(" q=");
    for (int i = 0; i < s.getNQ(); i++) std::printf("%s%.17g", i ? "," : "", s.getQ()[i]);
    std::printf(" u=");
    for (int i = 0; i < s.getNU(); i++) std::printf("%s%.17g", i ? "," : "", s.getU()[i]);
    std::printf("\n");

    if (traj) {
        FILE* f = std::fopen(traj, "w");
        if (!f) {
            std::fprintf(stderr, "simbody_peer: cannot write '%s'\n", traj);
            return 1;
        }
        std::fprintf(f, "t");
        for (int b = 0; b < nb; b++) std::fprintf(f, ",b%d.cx,b%d.cy,b%d.cz", b, b, b);
        std::fprintf(f, "\n");
        size_t w = 1 + 3 * nb;
        for (size_t r = 0; r < rows.size() / w; r++) {
            for (size_t j = 0; j < w; j++)
                std::fprintf(f, "%s%.17g", j ? "," : "", rows[r * w + j]);
            std::fprintf(f, "\n");
        }
        std::fclose(f);
    }
    return 0;
}
