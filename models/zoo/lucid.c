/*
** lucid.c: the training workloads of Lucid (Hu et al., ASPLOS 2023,
** github.com/S-Lab-System-Group/Lucid, workloads/), whose solo and
** co-located speeds are in ../shared/measurements/lucid/.  ResNet-18 on
** CIFAR-10, the LSTM and the Multi30k Transformer are Gavel's models (the
** same code bases, models/zoo/gavel.c); ResNet-50 is the zoo's resnet50.
**
**   vgg11-cifar10        kuangliu pytorch-cifar VGG('VGG11'): 3x3 convs
**                        with bias and batch norm, 10 classes
**   mobilenetv2-cifar10  kuangliu MobileNetV2 for 32x32 (the second stage
**                        at stride 1), 10 classes
**   dcgan-lsun           PyTorch examples DCGAN (nz 100, ngf = ndf = 64,
**                        64x64 images)
**   pointnet-shapenet    fxia22 PointNetCls (STN3d + PointNetfeat + a
**                        3-layer classifier, 2500 points, 16 classes)
**   neumf-movielens      guoyang9 NCF NeuMF (factor 32, 3 MLP layers) on
**                        MovieLens-1M (6040 users, 3706 items; the data
**                        set variant is an assumption)
**   ppo-lunarlander      stable-baselines3 PPO MlpPolicy (pi and vf [64,
**                        64]) on LunarLander-v2 (8 observations, 4
**                        actions); a sample is one transition
**   td3-bipedalwalker    stable-baselines3 TD3 MlpPolicy (actor and two
**                        critics [400, 300]) on BipedalWalker (24, 4)
**
** Not in the zoo (left out, docs/MODEL.md): Lucid's EfficientNet-B0 and
** MobileNetV3-small (squeeze-excitation blocks the builder does not
** describe yet) and its BERT fine-tuning on SQuAD.
*/
#include "models/zoo/build.h"

static void vgg11_cifar(struct zoo__slot *s)
{
	static const int cfg[] = { 64, 0, 128, 0, 256, 256, 0, 512, 512, 0,
				   512, 512, 0 };
	struct zoo__b b;
	size_t i;
	int cin = 3, h = 32, stage = 1;

	zoo__begin(&b, s, "vgg11-cifar10", "VGG-11 (CIFAR-10)", "vision", 32,
		   "Simonyan & Zisserman ICLR 2015 config A; kuangliu "
		   "pytorch-cifar VGG('VGG11') with batch norm, 10 classes");
	zoo__meta(&b, 64, "Lucid (ASPLOS'23) VGG CIFAR-10");
	zoo__group(&b, "conv1");
	zoo__act_train(&b, 3 * 32 * 32);
	for (i = 0; i < sizeof cfg / sizeof cfg[0]; i++) {
		if (cfg[i] == 0) {
			zoo__pool(&b, cin, h, h, h / 2, h / 2);
			h /= 2;
			if (i + 1 < sizeof cfg / sizeof cfg[0])
				zoo__group(&b, "conv%d", ++stage);
			continue;
		}
		zoo__conv(&b, cin, cfg[i], 3, 3, h, h, h, h, 1, ZOO__BIAS);
		zoo__bn(&b, cfg[i], h, h);
		cin = cfg[i];
	}
	zoo__group(&b, "fc");
	zoo__linear(&b, 512, 10, 1, 1);
	zoo__end(&b);
}

static void mobilenetv2_cifar(struct zoo__slot *s)
{
	/* (expansion, out, blocks, stride) */
	static const int cfg[7][4] = {
		{ 1, 16, 1, 1 }, { 6, 24, 2, 1 }, { 6, 32, 3, 2 },
		{ 6, 64, 4, 2 }, { 6, 96, 3, 1 }, { 6, 160, 3, 2 },
		{ 6, 320, 1, 1 },
	};
	struct zoo__b b;
	int st, i, cin = 32, h = 32, blk = 0;

	zoo__begin(&b, s, "mobilenetv2-cifar10", "MobileNetV2 (CIFAR-10)",
		   "vision", 32,
		   "Sandler et al. CVPR 2018; kuangliu pytorch-cifar "
		   "MobileNetV2 (second stage at stride 1), 10 classes");
	zoo__meta(&b, 64, "Lucid (ASPLOS'23) MobileNetV2 CIFAR-10");
	zoo__group(&b, "stem");
	zoo__act_train(&b, 3 * 32 * 32);
	zoo__conv(&b, 3, 32, 3, 3, 32, 32, 32, 32, 1, ZOO__BN);
	for (st = 0; st < 7; st++)
		for (i = 0; i < cfg[st][2]; i++) {
			int stride = i == 0 ? cfg[st][3] : 1;
			int planes = cfg[st][0] * cin, out = cfg[st][1];
			int hout = h / stride;

			zoo__group(&b, "block%d", blk++);
			zoo__hold(&b, (uint64_t)cin * h * h);
			zoo__conv(&b, cin, planes, 1, 1, h, h, h, h, 1,
				  ZOO__BN);
			zoo__conv(&b, planes, planes, 3, 3, h, h, hout, hout,
				  planes, ZOO__BN);
			zoo__conv(&b, planes, out, 1, 1, hout, hout, hout,
				  hout, 1, ZOO__BN);
			if (stride == 1 && cin != out)
				zoo__conv(&b, cin, out, 1, 1, h, h, h, h, 1,
					  ZOO__BN);
			zoo__hold(&b, 0);
			cin = out;
			h = hout;
		}
	zoo__group(&b, "head");
	zoo__conv(&b, 320, 1280, 1, 1, 4, 4, 4, 4, 1, ZOO__BN);
	zoo__pool(&b, 1280, 4, 4, 1, 1);
	zoo__linear(&b, 1280, 10, 1, 1);
	zoo__end(&b);
}

static void dcgan(struct zoo__slot *s)
{
	struct zoo__b b;
	double fd;

	zoo__begin(&b, s, "dcgan-lsun", "DCGAN (LSUN)", "vision", 64,
		   "Radford et al. ICLR 2016; PyTorch examples dcgan (nz 100, "
		   "ngf = ndf = 64, 64x64); a sample = one image of the "
		   "generator and discriminator steps");
	zoo__meta(&b, 64, "Lucid (ASPLOS'23) DCGAN LSUN");
	zoo__group(&b, "generator");
	zoo__convt(&b, 100, 512, 4, 1, 4, ZOO__BN);
	zoo__convt(&b, 512, 256, 4, 4, 8, ZOO__BN);
	zoo__convt(&b, 256, 128, 4, 8, 16, ZOO__BN);
	zoo__convt(&b, 128, 64, 4, 16, 32, ZOO__BN);
	zoo__convt(&b, 64, 3, 4, 32, 64, ZOO__NONE);
	zoo__group(&b, "discriminator");
	zoo__conv(&b, 3, 64, 4, 4, 64, 64, 32, 32, 1, ZOO__NONE);
	zoo__conv(&b, 64, 128, 4, 4, 32, 32, 16, 16, 1, ZOO__BN);
	zoo__conv(&b, 128, 256, 4, 4, 16, 16, 8, 8, 1, ZOO__BN);
	zoo__conv(&b, 256, 512, 4, 4, 8, 8, 4, 4, 1, ZOO__BN);
	zoo__conv(&b, 512, 1, 4, 4, 4, 4, 1, 1, 1, ZOO__NONE);
	/* the discriminator runs on the real batch, the fake batch of its
	** own step and the fake batch of the generator's step */
	fd = s->g[1].fwd_flops;
	zoo__flops(&b, 2.0 * fd);
	zoo__end(&b);
}

/* A Conv1d(cin, cout, 1) with bias over n points and its batch norm. */
static void pconv(struct zoo__b *b, int cin, int cout, int n)
{
	zoo__linear(b, cin, cout, n, 1);
	zoo__bn(b, cout, n, 1);
}

static void pointnet(struct zoo__slot *s)
{
	enum { N = 2500, K = 16 };
	struct zoo__b b;

	zoo__begin(&b, s, "pointnet-shapenet", "PointNet (ShapeNet)", "vision",
		   N,
		   "Qi et al. CVPR 2017; fxia22 pointnet.pytorch PointNetCls "
		   "(STN3d, no feature transform), 2500 points, 16 classes");
	zoo__meta(&b, 32, "Lucid (ASPLOS'23) PointNet ShapeNet");
	zoo__group(&b, "stn3d");
	zoo__act_train(&b, 3 * N);
	pconv(&b, 3, 64, N);
	pconv(&b, 64, 128, N);
	pconv(&b, 128, 1024, N);
	zoo__linear(&b, 1024, 512, 1, 1);
	zoo__bn(&b, 512, 1, 1);
	zoo__linear(&b, 512, 256, 1, 1);
	zoo__bn(&b, 256, 1, 1);
	zoo__linear(&b, 256, 9, 1, 1);
	zoo__group(&b, "feat");
	pconv(&b, 3, 64, N);
	pconv(&b, 64, 128, N);
	pconv(&b, 128, 1024, N);
	zoo__group(&b, "cls");
	zoo__linear(&b, 1024, 512, 1, 1);
	zoo__bn(&b, 512, 1, 1);
	zoo__linear(&b, 512, 256, 1, 1);
	zoo__bn(&b, 256, 1, 1);
	zoo__linear(&b, 256, K, 1, 1);
	zoo__end(&b);
}

static void neumf(struct zoo__slot *s)
{
	enum { USERS = 6040, ITEMS = 3706, F = 32 };
	struct zoo__b b;

	zoo__begin(&b, s, "neumf-movielens", "NeuMF (MovieLens-1M)", "recsys",
		   2,
		   "He et al. WWW 2017; guoyang9 NCF NeuMF-pre (factor 32, 3 "
		   "MLP layers); MovieLens-1M (6040 users, 3706 items) "
		   "assumed; a sample = one (user, item) pair");
	zoo__meta(&b, 128, "Lucid (ASPLOS'23) NeuMF MovieLens");
	zoo__group(&b, "embed");
	zoo__params(&b, (uint64_t)(USERS + ITEMS) * (F + 4 * F));
	zoo__act_train(&b, 2 * (F + 4 * F));
	zoo__group(&b, "mlp");
	zoo__linear(&b, 8 * F, 4 * F, 1, 1);
	zoo__linear(&b, 4 * F, 2 * F, 1, 1);
	zoo__linear(&b, 2 * F, F, 1, 1);
	zoo__group(&b, "predict");
	zoo__linear(&b, 2 * F, 1, 1, 1);
	zoo__end(&b);
}

/* An MLP in -> h1 -> h2 -> out with biases. */
static void mlp(struct zoo__b *b, int in, int h1, int h2, int out)
{
	zoo__linear(b, in, h1, 1, 1);
	zoo__linear(b, h1, h2, 1, 1);
	zoo__linear(b, h2, out, 1, 1);
}

static void ppo(struct zoo__slot *s)
{
	struct zoo__b b;

	zoo__begin(&b, s, "ppo-lunarlander", "PPO (LunarLander)", "rl", 8,
		   "Schulman et al. 2017; stable-baselines3 PPO MlpPolicy (pi "
		   "and vf [64, 64]) on LunarLander-v2; a sample = one "
		   "transition of a minibatch");
	zoo__meta(&b, 64, "Lucid (ASPLOS'23) PPO LunarLander");
	zoo__group(&b, "policy");
	zoo__act_train(&b, 8);
	mlp(&b, 8, 64, 64, 4);
	zoo__group(&b, "value");
	mlp(&b, 8, 64, 64, 1);
	zoo__group(&b, "heads");
	zoo__params(&b, 0);
	zoo__end(&b);
}

static void td3(struct zoo__slot *s)
{
	struct zoo__b b;

	zoo__begin(&b, s, "td3-bipedalwalker", "TD3 (BipedalWalker)", "rl",
		   24,
		   "Fujimoto et al. ICML 2018; stable-baselines3 TD3 "
		   "MlpPolicy (actor, two critics [400, 300]; target copies "
		   "not trained) on BipedalWalker (24 obs, 4 actions)");
	zoo__meta(&b, 64, "Lucid (ASPLOS'23) TD3 BipedalWalker");
	zoo__group(&b, "actor");
	zoo__act_train(&b, 24);
	mlp(&b, 24, 400, 300, 4);
	zoo__group(&b, "critic1");
	mlp(&b, 28, 400, 300, 1);
	zoo__group(&b, "critic2");
	mlp(&b, 28, 400, 300, 1);
	zoo__end(&b);
}

int zoo__build_lucid(struct zoo__slot *s)
{
	vgg11_cifar(&s[0]);
	mobilenetv2_cifar(&s[1]);
	dcgan(&s[2]);
	pointnet(&s[3]);
	neumf(&s[4]);
	ppo(&s[5]);
	td3(&s[6]);
	return 7;
}
